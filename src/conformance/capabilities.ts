import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  call,
  check,
  checkImageSize,
  Fail,
  findElement,
  ok,
  openLab,
  type RunContext,
  session,
  shows,
  snapshotText,
} from './steps.js';

/**
 * The draft wants honest capability reports: whatever describe lists must work. Each listed
 * feature and optional method is exercised on the lab page (src/conformance/pages.ts) and its
 * effect is read back from the page, not from the reply's own claims.
 */

type Check = (ctx: RunContext) => Promise<void>;

/** The methods a feature cannot exist without (the draft ties none; these are the evident ones). */
const FEATURE_METHODS: Record<string, string[][]> = {
  js_eval: [['page.eval']],
  file_upload: [['upload.set_files']],
  network_observe: [['network.list']],
  console_observe: [['console.list']],
  download_observe: [['download.list'], ['download.wait']],
};

/** Features whose behaviour needs what a test run cannot provide (a running browser of the user's, a profile kept across runs). */
const NOT_EXERCISABLE = new Set([
  'attach_existing_browser',
  'persistent_profile',
  'manual_setup_required',
  'extension_required',
  'remote_debugging_required',
]);

const json = (v: unknown) => JSON.stringify(v ?? null);

async function labSnapshot(ctx: RunContext): Promise<any> {
  return (await snapshotText(ctx)).snap;
}

async function seeOrFail(ctx: RunContext, text: string, what: string): Promise<void> {
  check(await shows(ctx, text), `${what} answered ok but the page does not show "${text}"`);
}

const s = (ctx: RunContext, extra: Record<string, unknown> = {}) => ({ ...session(ctx), ...extra });

/** A download the lab page started, found in download.list (polled: downloads finish on their own). */
async function labDownload(ctx: RunContext): Promise<any> {
  await ok(ctx, 'page.click', s(ctx, { selector: '#download' }));
  const end = Date.now() + 5000;
  for (;;) {
    const r = await ok(ctx, 'download.list', s(ctx));
    const found = (Array.isArray(r.downloads) ? r.downloads : []).find((d: any) =>
      json(d).includes('conformance-download.txt'),
    );
    if (found) return found;
    if (Date.now() > end) throw new Fail('download.list does not list the download the lab page started');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const METHOD_CHECKS: Record<string, Check> = {
  'page.eval': async (ctx) => {
    const r = await ok(ctx, 'page.eval', s(ctx, { script: '6 * 7' }));
    check(r.value === 42, `page.eval of "6 * 7" gave ${json(r.value)}, not 42`);
  },
  'upload.set_files': async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    try {
      const file = join(dir, 'conformance-upload.txt');
      writeFileSync(file, 'conformance upload\n');
      await ok(ctx, 'upload.set_files', s(ctx, { selector: '#file', files: [file] }));
      await seeOrFail(ctx, 'File: conformance-upload.txt', 'upload.set_files');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  'network.list': async (ctx) => {
    const r = await ok(ctx, 'network.list', s(ctx));
    check(json(r).includes('/lab.html'), 'network.list does not show the request for /lab.html');
  },
  'console.list': async (ctx) => {
    const r = await ok(ctx, 'console.list', s(ctx));
    check(
      json(r).includes('conformance-console-line'),
      "console.list does not show the lab page's console.log",
    );
  },
  'download.list': async (ctx) => {
    await labDownload(ctx);
  },
  'download.wait': async (ctx) => {
    const d = await labDownload(ctx);
    const id = d.download_id ?? d.id;
    check(id !== undefined, 'a download in download.list has no download_id');
    const r = await ok(ctx, 'download.wait', s(ctx, { download_id: id }));
    check(
      json(r).includes('completed'),
      `download.wait did not report the download completed: ${json(r).slice(0, 200)}`,
    );
  },
  'page.press': async (ctx) => {
    await ok(ctx, 'page.press', s(ctx, { selector: '#keys', key: 'Enter' }));
    await seeOrFail(ctx, 'Key: Enter', 'page.press');
  },
  'page.select': async (ctx) => {
    await ok(ctx, 'page.select', s(ctx, { selector: '#colour', values: ['green'] }));
    await seeOrFail(ctx, 'Colour: green', 'page.select');
  },
  'page.hover': async (ctx) => {
    await ok(ctx, 'page.hover', s(ctx, { selector: '#hover' }));
    await seeOrFail(ctx, 'Hover: yes', 'page.hover');
  },
  'page.scroll': async (ctx) => {
    await ok(ctx, 'page.scroll', s(ctx, { dy: 600 }));
    await seeOrFail(ctx, 'Scrolled: yes', 'page.scroll');
  },
  'storage.get': async (ctx) => {
    const r = await ok(ctx, 'storage.get', s(ctx, { key: 'conformance_key' }));
    check(json(r).includes('conformance-value'), 'storage.get does not return the value the lab page stored');
  },
  'cookie.list': async (ctx) => {
    await ok(ctx, 'page.click', s(ctx, { selector: '#set-cookie' }));
    const r = await ok(ctx, 'cookie.list', s(ctx));
    check(json(r).includes('conformance_cookie'), 'cookie.list does not list the cookie the lab page set');
  },
  'tab.list': async (ctx) => {
    const r = await ok(ctx, 'tab.list', s(ctx));
    check(json(r.tabs).includes('/lab.html'), 'tab.list does not list the lab page');
  },
  'tab.new': async (ctx) => {
    const lab = ctx.pageId;
    const r = await ok(ctx, 'tab.new', s(ctx, { url: `${ctx.base}/second.html` }));
    const id = r.page_id ?? r.tab_id;
    check(typeof id === 'string' && id !== lab, 'tab.new returned no new page_id');
    const listed = await call(ctx, 'tab.list', s(ctx));
    if (listed.ok) check(json(listed.result).includes(id), `tab.list does not list the new tab ${id}`);
    const activate = await call(ctx, 'tab.activate', s(ctx, { page_id: id }));
    if (!(activate.ok || activate.error.code === 'unsupported_method'))
      throw new Fail(`tab.activate of the new tab failed: ${activate.error.code}`);
    const closed = await call(ctx, 'tab.close', s(ctx, { page_id: id }));
    if (closed.ok) {
      const after = await call(ctx, 'tab.list', s(ctx));
      if (after.ok) check(!json(after.result).includes(id), `tab.close left ${id} in tab.list`);
    } else if (closed.error.code !== 'unsupported_method')
      throw new Fail(`tab.close failed: ${closed.error.code}`);
    if (lab) await call(ctx, 'tab.activate', s(ctx, { page_id: lab }));
  },
  'page.go_back': async (ctx) => {
    await ok(ctx, 'page.open', s(ctx, { url: `${ctx.base}/second.html` }));
    const back = await ok(ctx, 'page.go_back', s(ctx));
    check(String(back.url).endsWith('/lab.html'), `page.go_back went to ${back.url}, not the lab page`);
    const fwd = await call(ctx, 'page.go_forward', s(ctx));
    if (fwd.ok)
      check(String(fwd.result.url).endsWith('/second.html'), `page.go_forward went to ${fwd.result.url}`);
    await openLab(ctx);
  },
  'page.reload': async (ctx) => {
    const r = await ok(ctx, 'page.reload', s(ctx));
    check(String(r.url).endsWith('/lab.html'), `page.reload ended on ${r.url}`);
  },
  'provider.setup_guide': async (ctx) => {
    await ok(ctx, 'provider.setup_guide');
  },
  'provider.verify': async (ctx) => {
    const r = await ok(ctx, 'provider.verify', { timeout_ms: 30_000 });
    check(typeof r.ok === 'boolean', 'provider.verify has no boolean ok');
  },
};
// page.go_forward needs a history entry: it is exercised with page.go_back.
METHOD_CHECKS['page.go_forward'] = METHOD_CHECKS['page.go_back']!;
// tab.activate and tab.close need a tab to act on: exercised with tab.new.
METHOD_CHECKS['tab.activate'] = METHOD_CHECKS['tab.new']!;
METHOD_CHECKS['tab.close'] = METHOD_CHECKS['tab.new']!;

const FEATURE_CHECKS: Record<string, Check> = {
  element_refs: async (ctx) => {
    check(findElement(await labSnapshot(ctx), 'Pick Apple'), 'no element_ref for the "Pick Apple" button');
  },
  a11y_snapshot: async (ctx) => {
    const e = findElement(await labSnapshot(ctx), 'Pick Apple');
    check(e?.role === 'button', `"Pick Apple" has role ${json(e?.role)}, not button`);
  },
  html_snapshot: async (ctx) => {
    const r = await ok(ctx, 'page.snapshot', s(ctx, { include_html: true }));
    check(
      json(r).includes('Conformance lab</h1>'),
      'page.snapshot with include_html has no HTML of the page',
    );
  },
  dom_snapshot: async (ctx) => {
    await ok(ctx, 'page.snapshot', s(ctx, { include_dom: true }));
  },
  full_page_screenshot: async (ctx) => {
    const view = checkImageSize(await ok(ctx, 'page.screenshot', s(ctx)), 'page.screenshot');
    const full = checkImageSize(await ok(ctx, 'page.screenshot', s(ctx, { full_page: true })), 'full_page');
    if (view && full)
      check(
        full.height > view.height,
        `a full-page screenshot of a tall page is ${full.height} px high, like the viewport`,
      );
  },
  isolated_contexts: async (ctx) => {
    await ok(ctx, 'page.click', s(ctx, { selector: '#set-cookie' }));
    const other = await ok(ctx, 'session.ensure', {
      client_session_id: `conformance-isolation-${ctx.run}-${Date.now()}`,
    });
    check(other.session_id !== ctx.sessionId, 'a second session.ensure returned the same session');
    try {
      await ok(ctx, 'page.open', { session_id: other.session_id, url: `${ctx.base}/lab.html` });
      const r = await ok(ctx, 'page.snapshot', { session_id: other.session_id });
      check(
        json(r).includes('Cookie: unset'),
        "a second session sees the first one's cookie (contexts are not isolated)",
      );
    } finally {
      await call(ctx, 'session.close', { session_id: other.session_id });
    }
  },
};

export interface CapabilityReport {
  failures: string[];
  exercised: string[];
  skipped: string[];
}

function listedIn(describe: any): { features: string[]; listed: Set<string> } {
  const caps = describe?.capabilities ?? {};
  return {
    features: Array.isArray(caps.features) ? caps.features : [],
    listed: new Set<string>([...(caps.core_methods ?? []), ...(caps.optional_methods ?? [])]),
  };
}

/** Listed features whose methods are not listed (a lie describe tells on its own). */
export function featuresWithoutMethods(describe: any): string[] {
  const { features, listed } = listedIn(describe);
  const out: string[] = [];
  for (const f of features) {
    const needs = FEATURE_METHODS[f];
    if (needs && !needs.some((alt) => alt.every((m) => listed.has(m))))
      out.push(`feature ${f} is listed without ${needs.map((a) => a.join(' + ')).join(' or ')}`);
  }
  return out;
}

/**
 * Runs the check of every listed feature and optional method once (a check shared by several
 * runs once); `only` limits it to those feature and method names.
 */
export async function exerciseCapabilities(
  ctx: RunContext,
  describe: any,
  only?: string[],
): Promise<CapabilityReport> {
  const all = listedIn(describe);
  const keep = (name: string) => !only || only.includes(name);
  const features = all.features.filter(keep);
  const listed = new Set([...all.listed].filter(keep));
  const failures = featuresWithoutMethods(describe);
  const exercised: string[] = [];
  const skipped: string[] = [];
  const done = new Set<Check>();
  const run = async (name: string, fn: Check | undefined) => {
    if (!fn || done.has(fn)) return;
    done.add(fn);
    exercised.push(name);
    try {
      await fn(ctx);
    } catch (err) {
      failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const lab = await openLab(ctx);
  ctx.pageId = lab.page_id ?? ctx.pageId;
  for (const f of features) {
    if (NOT_EXERCISABLE.has(f)) skipped.push(f);
    else if (FEATURE_CHECKS[f]) await run(`feature ${f}`, FEATURE_CHECKS[f]);
    else
      for (const alt of FEATURE_METHODS[f] ?? [])
        for (const m of alt) if (listed.has(m)) await run(`feature ${f} (${m})`, METHOD_CHECKS[m]);
  }
  // Page-changing checks last, each from the lab page as it was left.
  const order = Object.keys(METHOD_CHECKS).sort(
    (a, b) =>
      Number(a.startsWith('page.go_') || a === 'page.reload') -
      Number(b.startsWith('page.go_') || b === 'page.reload'),
  );
  for (const m of order) if (listed.has(m)) await run(m, METHOD_CHECKS[m]);
  return { failures, exercised, skipped };
}
