import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  redirectHopsHooked,
  redirectHopsJudgedCount,
  redirectHopsPagesRemembered,
} from '../src/backends/chromium/redirect-hops.js';
import type { Engine, OriginPolicyInput, Session } from '../src/index.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { until } from './helpers/until.js';

/**
 * A restricted page's requests are paused once each in Chromium: the origin policy judges redirect
 * hops inside playwright-core's own Fetch interception (src/backends/chromium/redirect-hops.ts), not in
 * a second interception of its own. The spy counts, on playwright-core's CDP connection, every
 * `Fetch.requestPaused` the browser sends, per request and hop (network id and URL): with a second
 * interception each hop is paused twice.
 */

interface Connection {
  _protocolLogger: (direction: string, message: unknown) => void;
  tabwrightSpied?: boolean;
}
interface PausedMessage {
  method?: string;
  params?: { networkId?: string; requestId: string; request: { url: string } };
}

const pauses = new Map<string, number>();

function spyOn(connection: Connection | undefined): void {
  if (!connection || connection.tabwrightSpied) return;
  connection.tabwrightSpied = true;
  const log = connection._protocolLogger;
  connection._protocolLogger = (direction, message) => {
    const m = message as PausedMessage;
    if (direction === 'receive' && m.method === 'Fetch.requestPaused' && m.params) {
      const key = `${m.params.networkId ?? m.params.requestId} ${m.params.request.url}`;
      pauses.set(key, (pauses.get(key) ?? 0) + 1);
    }
    log.call(connection, direction, message);
  };
}

// Every page's CDP connection, from playwright-core's server side (the driver runs in this process).
const serverPage = (
  createRequire(import.meta.url)('playwright-core/lib/coreBundle') as {
    server: { Page: { prototype: { needsRequestInterception: () => boolean } } };
  }
).server.Page.prototype;
const needs = serverPage.needsRequestInterception;
serverPage.needsRequestInterception = function (this: {
  delegate?: { _mainFrameSession?: { _client?: { _connection?: Connection } } };
}) {
  spyOn(this.delegate?._mainFrameSession?._client?._connection);
  return needs.call(this);
};

interface RoutableLike {
  route(url: string, handler: (route: { continue(): Promise<void> }) => unknown): Promise<void>;
  unroute(url: string, handler: (route: { continue(): Promise<void> }) => unknown): Promise<void>;
}

let server: FixtureServer;
let engine: Engine;
let strict: Session;
let strictPageGate: Session;
/** The default: other hosts' subresources refused in Chromium itself (in-browser-refusal.ts). */
let strictInBrowser: Session;
const home = tempHome();

before(async () => {
  server = await startFixtureServer();
  engine = newEngine(home.dir);
  const policy: OriginPolicyInput = { allowed_origins: [server.url], subresources: 'block' };
  // These two judge every request in Node, as a browser without in-browser refusal does.
  strict = await judgedInNode(() => engine.startSession({ policy }, { timeoutMs: 30_000 }));
  strictPageGate = await judgedInNode(() =>
    withPageGate(() => engine.startSession({ policy }, { timeoutMs: 30_000 })),
  );
  strictInBrowser = await engine.startSession({ policy }, { timeoutMs: 30_000 });
});

/** Runs `fn` with one environment switch set (both are read when a context's filter is set). */
async function withEnv<T>(name: string, value: string, fn: () => Promise<T>): Promise<T> {
  process.env[name] = value;
  try {
    return await fn();
  } finally {
    delete process.env[name];
  }
}
/** The per-page Fetch interception instead of the hook. */
const withPageGate = <T>(fn: () => Promise<T>) => withEnv('TABWRIGHT_REDIRECT_GATE', 'page', fn);
/** Every request judged in Node: nothing refused in Chromium itself. */
const judgedInNode = <T>(fn: () => Promise<T>) => withEnv('TABWRIGHT_REFUSE_IN_BROWSER', '0', fn);

after(async () => {
  await engine.close();
  await server.close();
  home.cleanup();
});

for (const gate of ['hook', 'page'] as const) {
  const inPage = gate === 'page';
  const session = () => (inPage ? strictPageGate : strict);
  describe(`origin policy (${gate}): one interception per request`, () => {
    test('redirected subresources: the refused hops are failed and recorded for the page, each request paused once', async () => {
      const page = session().page();
      const since = session().network.lastSeq;
      const judged = redirectHopsJudgedCount();
      pauses.clear();
      await page.open(
        `${server.url}/fixtures/policy/redirected-subresources.html?alt=${encodeURIComponent(server.altUrl)}`,
      );
      await page.wait(
        { js_predicate: "!document.body.innerText.includes('pending')" },
        {},
        { timeoutMs: 5000 },
      );
      const text = await page.evaluate(
        'statuses',
        () => ['allowed', 'refused', 'fetch'].map((id) => document.getElementById(id)?.textContent).join(' '),
        null,
      );
      assert.equal(text, 'loaded failed failed');
      assert.ok(pauses.size >= 6, `the spy saw the page's pauses: ${[...pauses.keys()].join(', ')}`);
      const twice = [...pauses].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`);
      if (inPage) assert.ok(twice.length > 0, 'the per-page interception pauses requests a second time');
      else assert.deepEqual(twice, [], 'each request and redirect hop paused once');
      const rec = await until(() => {
        const r = session().blockedRequests({ since_seq: since });
        return r.length >= 2 && r;
      });
      for (const r of rec) {
        assert.ok(r.url.startsWith(server.altUrl), r.url);
        assert.equal(r.kind, 'subresource');
        assert.equal(r.page_id, page.id);
        assert.equal(r.frame, 'main');
      }
      // The page's request log shows the refused hop, failed (the second interception failed it before
      // playwright-core saw it: it was missing from the log).
      const hop = session()
        .requests.list({ page_id: page.id })
        .find((e) => e.url.includes('?via=redirect'));
      // (The per-page gate fails the hop before playwright-core sees it: missing from the log.)
      if (!inPage) assert.equal(hop?.state, 'failed', JSON.stringify(hop));
      // Failed by the judge (Fetch.failRequest BlockedByClient, as Chromium words it), not by the policy proxy.
      if (!inPage) assert.equal(hop?.failure, 'net::ERR_BLOCKED_BY_CLIENT.Inspector', JSON.stringify(hop));

      assert.ok(redirectHopsHooked(), "redirect hops can be judged in playwright-core's own pause");
      if (inPage) assert.equal(redirectHopsJudgedCount(), judged, 'none judged there: the per-page gate did');
      else assert.ok(redirectHopsJudgedCount() >= judged + 3, 'the three redirect hops were judged there');
    });

    test('a document redirected to a refused origin is still refused at the hop, paused once', async () => {
      const page = session().page();
      const since = session().network.lastSeq;
      const judged = redirectHopsJudgedCount();
      pauses.clear();
      const target = `${server.altUrl}/echo?via=single-pause`;
      const err = await rejectsWith(
        page.open(`${server.url}/redirect?to=${encodeURIComponent(target)}`),
        'permission_denied',
      );
      assert.equal(err.details.kind, 'redirect');
      const rec = session().blockedRequests({ since_seq: since });
      assert.equal(rec[0]?.url, target);
      assert.equal(rec[0]?.kind, 'redirect');
      assert.equal(rec[0]?.page_id, page.id);
      assert.ok(pauses.size >= 2, [...pauses.keys()].join(', '));
      const twice = [...pauses].filter(([, n]) => n > 1).map(([k]) => k);
      if (inPage) {
        assert.ok(twice.length > 0, 'the per-page interception pauses requests a second time');
        assert.equal(redirectHopsJudgedCount(), judged, 'the per-page gate refused the hop');
      } else {
        assert.deepEqual(twice, []);
        assert.ok(redirectHopsJudgedCount() > judged);
      }
    });
  });

  // Only the hook remembers pages: with the per-page interception there is nothing to count.
  test(`(${gate}) a page already answered is not remembered again when playwright-core re-asks it`, {
    skip: inPage,
  }, async () => {
    const page = session().page();
    await page.open(`${server.url}/echo?via=remembered`);
    assert.equal(redirectHopsPagesRemembered(), 0, 'every judged page was asked about');
    // A page route added or removed makes playwright-core ask the page needsRequestInterception() again.
    const pw = (page.backend as unknown as { pw: RoutableLike }).pw;
    const handler = (route: { continue(): Promise<void> }) => route.continue();
    await pw.route('**/never-requested', handler);
    await pw.unroute('**/never-requested', handler);
    assert.equal(redirectHopsPagesRemembered(), 0, 'the re-asked page was not remembered again');
  });

  // Not under TABWRIGHT_REDIRECT_GATE=page: the per-page gate has no Fetch session on an
  // out-of-process frame, so that frame's hop goes out to the policy proxy, which answers 403
  // (measured 2026-12-02; the refused origin still never sees it).
  describe(`origin policy (${gate}): redirect hops of out-of-process frames`, { skip: inPage }, () => {
    test('a frame on another allowed site: its later navigation redirected to a refused origin is refused at the hop by the page layer', async () => {
      // Two allowed sites (127.0.0.1 and localhost): the frame on the second runs in its own process.
      const judged = redirectHopsJudgedCount();
      const start = () =>
        engine.startSession({
          policy: { allowed_origins: [server.url, server.altUrl], subresources: 'block' },
        });
      const s = await start();
      try {
        const page = s.page();
        // The refused origin is served for real (127.0.0.2): a hop that left would reach it.
        const seen: string[] = [];
        const other: Server = createServer((req, res) => {
          seen.push(req.url ?? '');
          res.writeHead(200, { 'content-type': 'text/html' }).end('<title>refused origin</title>');
        });
        await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
        try {
          const refused = `http://127.0.0.2:${(other.address() as AddressInfo).port}/echo?via=oopif-later`;
          const since = s.network.lastSeq;
          await page.open(
            `${server.url}/fixtures/policy/oopif-later-redirect.html?alt=${encodeURIComponent(server.altUrl)}&to=${encodeURIComponent(refused)}`,
          );
          const rec = await until(() =>
            s.blockedRequests({ since_seq: since }).find((r) => r.url === refused),
          );
          // Judged where playwright-core pauses the frame's hop.
          assert.equal(rec.kind, 'redirect');
          assert.equal(rec.frame, 'child');
          assert.equal(rec.page_id, page.id);
          // The hop failed with the judge's error (a document: Aborted), not the policy proxy's.
          const hop = await until(() =>
            s.requests.list({ page_id: page.id }).find((e) => e.url === refused && e.state === 'failed'),
          );
          assert.equal(hop.failure, 'net::ERR_ABORTED', JSON.stringify(hop));
          assert.deepEqual(seen, [], 'the refused origin never saw the hop');
          assert.ok(page.backend.frames().every((f) => !f.url().startsWith('http://127.0.0.2')));
          assert.ok(redirectHopsJudgedCount() > judged);
        } finally {
          await new Promise((r) => other.close(r));
        }
      } finally {
        await engine.closeSession(s.id);
      }
    });
  });
}

test("in-browser refusal: other hosts' subresources and redirect hops are refused by Chromium, never judged in Node, and recorded for the page", async () => {
  const page = strictInBrowser.page();
  const since = strictInBrowser.network.lastSeq;
  const judged = redirectHopsJudgedCount();
  await page.open(
    `${server.url}/fixtures/policy/redirected-subresources.html?alt=${encodeURIComponent(server.altUrl)}`,
  );
  await page.wait({ js_predicate: "!document.body.innerText.includes('pending')" }, {}, { timeoutMs: 5000 });
  const text = await page.evaluate(
    'statuses',
    () => ['allowed', 'refused', 'fetch'].map((id) => document.getElementById(id)?.textContent).join(' '),
    null,
  );
  assert.equal(text, 'loaded failed failed');
  // Of the three hops only the allowed one reached the judge in playwright-core's pause (in Node: all).
  assert.equal(redirectHopsJudgedCount() - judged, 1, 'Chromium refused the other two itself');
  // The refused hops are recorded under their own URLs, for the page's main frame.
  const hops = [
    `${server.altUrl}/fixtures/screenshots/dot.svg?via=redirect`,
    `${server.altUrl}/echo?via=fetch-redirect`,
  ];
  const rec = await until(() => {
    const r = strictInBrowser.blockedRequests({ since_seq: since });
    return hops.every((u) => r.some((x) => x.url === u)) && r;
  });
  for (const r of rec) {
    assert.ok(r.url.startsWith(server.altUrl), r.url);
    assert.equal(r.kind, 'subresource');
    assert.equal(r.page_id, page.id);
    assert.equal(r.frame, 'main');
  }
  assert.equal(rec.length, 2, 'each refusal recorded once');
  // In the request log the redirecting request fails as the filter's refusals do.
  const first = await until(() =>
    strictInBrowser.requests
      .list({ page_id: page.id })
      .find((e) => e.url.includes(encodeURIComponent('dot.svg?via=redirect')) && e.state === 'failed'),
  );
  assert.equal(first.failure, 'net::ERR_BLOCKED_BY_CLIENT', "worded as the filter's refusals are");
});
