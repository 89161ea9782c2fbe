import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { ProviderClient } from '../src/conformance/client.js';
import { readRecord, writeRecord } from '../src/conformance/record.js';
import type { SuiteResult } from '../src/conformance/runner.js';
import { LineFramer } from '../src/doors/kit/line-framer.js';
import { buildDescribe } from '../src/doors/provider/describe.js';
import { EVENT_NAMES } from '../src/doors/provider/events.js';
import { writeJsonLine } from '../src/doors/provider/json-writer.js';
import { ALL_METHODS, providerTable } from '../src/doors/provider/registry.js';
import type { ProviderOptions } from '../src/doors/provider/table.js';
import { VERSION } from '../src/version.js';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { spawnProvider } from './helpers/provider.js';
import { seededRandom } from './helpers/random.js';

const CORE = [
  'provider.describe',
  'provider.status',
  'session.ensure',
  'session.close',
  'page.open',
  'page.snapshot',
  'page.click',
  'page.type',
  'page.wait',
  'page.screenshot',
];

/** The provider options the CLI builds: the last conformance record read from a tabwright home. */
function withRecords<T extends object>(opts: T, home: string): T {
  return { ...opts, lastCertification: (family: string) => readRecord(home, family) };
}

describe('line framing', () => {
  it('splits lines across chunk boundaries, handles CRLF, skips blanks', () => {
    const f = new LineFramer(100);
    const text = '{"a":1}\r\n\n{"b":"é"}\n{"c":3}';
    const bytes = Buffer.from(text);
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i += 3) {
      for (const e of f.push(bytes.subarray(i, i + 3))) if (e.kind === 'line') out.push(e.text);
    }
    for (const e of f.end()) if (e.kind === 'line') out.push(e.text);
    assert.deepEqual(out, ['{"a":1}', '{"b":"é"}', '{"c":3}']);
  });

  it('reports an over-long line once and continues after its newline', () => {
    const f = new LineFramer(10);
    const ev = [
      ...f.push(Buffer.from('0123456')),
      ...f.push(Buffer.from('789abcdef')),
      ...f.push(Buffer.from('xyz\nok\n')),
    ];
    assert.deepEqual(ev, [
      { kind: 'overflow', bytes: 16 },
      { kind: 'line', text: 'ok' },
    ]);
  });

  it('fuzz: random chunkings give the same lines', () => {
    const rnd = seededRandom(7);
    const lines = Array.from({ length: 200 }, (_, i) =>
      JSON.stringify({ i, s: 'x'.repeat(Math.floor(rnd() * 40)) }),
    );
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    for (let round = 0; round < 20; round++) {
      const f = new LineFramer(1000);
      const got: string[] = [];
      let i = 0;
      while (i < bytes.length) {
        const n = 1 + Math.floor(rnd() * 64);
        for (const e of f.push(bytes.subarray(i, i + n))) if (e.kind === 'line') got.push(e.text);
        i += n;
      }
      assert.deepEqual(got, lines);
    }
  });
});

describe('reply writer', () => {
  const pieces = (value: unknown, pieceChars: number): string[] => {
    const out: string[] = [];
    writeJsonLine(value, (s) => out.push(s), pieceChars);
    return out;
  };

  it('writes exactly JSON.stringify(value) + newline, in pieces, for random replies', () => {
    const rnd = seededRandom(7);
    const strings = [
      '',
      'a',
      'é ü 漢字',
      'line\nbreak "quoted" \\ back',
      '\u2028\u2029',
      '\ud83d\ude00',
      '\u0000\u001f',
    ];
    const leaf = (): unknown => {
      const k = Math.floor(rnd() * 9);
      if (k === 0) return null;
      if (k === 1) return rnd() < 0.5;
      if (k === 2) return Math.floor(rnd() * 1e6) - 5e5;
      if (k === 3) return rnd() * 1e-3;
      if (k === 4) return Number.NaN; // null in JSON
      if (k === 5) return undefined; // dropped from objects, null in arrays
      if (k === 6) return new Date(1_700_000_000_000 + Math.floor(rnd() * 1e9)); // toJSON
      return strings[Math.floor(rnd() * strings.length)]! + 'x'.repeat(Math.floor(rnd() * 20));
    };
    // Values per round are capped: unbounded, a few rounds' long arrays nested four deep grew to
    // millions of nodes and the test took 80 s; a few thousand nodes cover the same cases.
    let budget = 0;
    const value = (depth: number): unknown => {
      if (depth > 3 || --budget <= 0 || rnd() < 0.3) return leaf();
      if (rnd() < 0.5) {
        // Short and long arrays: the writer descends only into long ones.
        const n = rnd() < 0.3 ? 64 + Math.floor(rnd() * 100) : Math.floor(rnd() * 5);
        return Array.from({ length: n }, () => value(depth + 1));
      }
      const o: Record<string, unknown> = Object.create(rnd() < 0.1 ? null : Object.prototype);
      for (let i = Math.floor(rnd() * 6); i > 0; i--)
        o[`k${Math.floor(rnd() * 4)}${strings[i % strings.length]}`] = value(depth + 1);
      if (rnd() < 0.1) o.fn = () => 1;
      return o;
    };
    for (let round = 0; round < 200; round++) {
      budget = 4000;
      const v = { protocol_version: '0.1', id: round, ok: true, result: value(0), warnings: [] };
      const got = pieces(v, 1 + Math.floor(rnd() * 300));
      assert.equal(got.join(''), `${JSON.stringify(v)}\n`);
      assert.ok(got.slice(0, -1).every((piece) => !piece.endsWith('\n')));
    }
  });

  it('reads lazy getters and toJSON as JSON.stringify does', () => {
    const result = { a: 1 } as Record<string, unknown>;
    Object.defineProperty(result, 'lazy', {
      enumerable: true,
      get: () => Array.from({ length: 70 }, (_, i) => ({ i })),
    });
    Object.defineProperty(result, 'hidden', { enumerable: false, value: 'no' });
    const v = { result, custom: { toJSON: () => 'custom' } };
    assert.equal(pieces(v, 10).join(''), `${JSON.stringify(v)}\n`);
  });

  it('ends a line it has started when a value cannot be encoded, then throws', () => {
    const v = { list: Array.from({ length: 100 }, (_, i) => (i === 90 ? { big: 1n } : { i })) };
    const out: string[] = [];
    assert.throws(() => writeJsonLine(v, (s) => out.push(s), 16), /BigInt/);
    assert.ok(out.length > 0);
    assert.equal(out.at(-1), '\n');
    // Nothing is written when the failure comes before the first piece.
    const none: string[] = [];
    assert.throws(() => writeJsonLine({ big: 1n }, (s) => none.push(s)), /BigInt/);
    assert.deepEqual(none, []);
  });
});

describe('provider.describe is generated from the method table', () => {
  const opts: ProviderOptions = {
    browser: 'chromium',
    families: ['chromium'],
    headed: false,
    home: '/nonexistent',
    allowRawCdp: false,
    transport: 'stdio-json',
  };
  type Caps = {
    core_methods: string[];
    optional_methods: string[];
    features: string[];
    feature_methods: Record<string, string[]>;
    custom_methods: { name: string }[];
    input_schemas: Record<string, unknown>;
  };
  const caps = (d: Record<string, unknown>) => d.capabilities as Caps;

  it('features and the methods behind them come from the rows', () => {
    const table = providerTable(opts);
    const c = caps(buildDescribe(ALL_METHODS, table, opts));
    assert.deepEqual(c.features, [
      'element_refs',
      'a11y_snapshot',
      'dom_snapshot',
      'html_snapshot',
      'full_page_screenshot',
      'attach_existing_browser',
      'persistent_profile',
      'isolated_contexts',
      'js_eval',
      'console_observe',
      'network_observe',
      'file_upload',
      'download_observe',
    ]);
    assert.deepEqual(c.feature_methods.element_refs, [
      'page.snapshot',
      'page.click',
      'page.type',
      'page.wait',
      'page.screenshot',
    ]);
    assert.deepEqual(c.feature_methods.file_upload, ['upload.set_files']);
    assert.deepEqual(c.feature_methods.download_observe, ['download.list', 'download.wait']);
    assert.deepEqual([...c.core_methods].sort(), [...CORE].sort());
    assert.deepEqual(Object.keys(c.input_schemas), table.names());
  });

  it('a feature is listed only when every one of its methods answers', () => {
    const table = providerTable(opts).filter((m) => m.name !== 'download.wait');
    const c = caps(buildDescribe(ALL_METHODS, table, opts));
    assert.ok(!c.optional_methods.includes('download.wait'));
    assert.ok(c.optional_methods.includes('download.list'));
    assert.ok(!c.features.includes('download_observe'));
    assert.equal(c.feature_methods.download_observe, undefined);
    assert.ok(c.features.includes('file_upload'));
  });

  it('certification: candidate, with the last recorded run of the suite (written by `tabwright conformance`)', () => {
    const home = tempHome();
    try {
      const table = providerTable(opts);
      const res = {
        provider: { id: 'tabwright', version: VERSION, label: null, browser_families: ['chromium'] },
        runs: 3,
        tier: 'Certified',
        summary: [
          { id: 'core.describe', ok: true },
          { id: 'cert.id_echo', ok: true },
        ],
        duration_ms: 1234,
      } as unknown as SuiteResult;
      writeRecord(home.dir, res);
      const d = buildDescribe(ALL_METHODS, table, withRecords(opts, home.dir)) as Record<string, any>;
      assert.equal(d.certification_tier, 'candidate');
      const last = d.certification.last_run;
      assert.equal(last.tier, 'Certified');
      assert.equal(last.runs, 3);
      assert.equal(last.scenarios_passed, 2);
      assert.deepEqual(last.failing, []);
      assert.equal(last.this_version, true);
      assert.ok(!Number.isNaN(Date.parse(last.at)));
      writeRecord(home.dir, { ...res, provider: { ...res.provider, version: '0.0.1' } } as SuiteResult);
      const older = buildDescribe(ALL_METHODS, table, withRecords(opts, home.dir)) as Record<string, any>;
      assert.equal(older.certification.last_run.this_version, false, 'a record of another version says so');
      // Each backend has its own record: a Firefox run says nothing about this Chromium provider.
      const other = tempHome();
      try {
        writeRecord(other.dir, {
          ...res,
          provider: { ...res.provider, browser_families: ['firefox'] },
        } as SuiteResult);
        const d2 = buildDescribe(ALL_METHODS, table, withRecords(opts, other.dir)) as Record<string, any>;
        assert.equal(d2.certification.last_run, null);
      } finally {
        other.cleanup();
      }
    } finally {
      home.cleanup();
    }
  });

  it("the doc's event table lists exactly describe's event kinds", () => {
    const doc = readFileSync(new URL('../docs/provider-protocol.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('\n## Events'), doc.indexOf('\n## Secrets'));
    const rows = [...section.matchAll(/^\| `([a-z_.]+)` \|/gm)].map((m) => m[1]);
    const d = buildDescribe(ALL_METHODS, providerTable(opts), opts) as { capabilities: { events: string[] } };
    assert.deepEqual(rows, d.capabilities.events);
    assert.deepEqual(d.capabilities.events, [...EVENT_NAMES]);
  });

  it('a method this process cannot serve is not listed (cdp.send without --allow-raw-cdp)', () => {
    const names = (o: ProviderOptions) =>
      caps(buildDescribe(ALL_METHODS, providerTable(o), o)).custom_methods;
    assert.ok(!names(opts).some((m) => m.name === 'cdp.send'));
    assert.ok(names({ ...opts, allowRawCdp: true }).some((m) => m.name === 'cdp.send'));
  });
});

describe('provider door over stdio', () => {
  let home: ReturnType<typeof tempHome>;
  let server: FixtureServer;
  let p: ProviderClient;

  before(async () => {
    home = tempHome();
    server = await startFixtureServer();
    p = spawnProvider(home.dir);
  });
  after(async () => {
    await p.close();
    await server.close();
    home.cleanup();
  });

  it('describe lists the core methods, schemas, features and honest custom methods', async () => {
    const d = await p.call('provider.describe');
    assert.equal(d.protocol_version, '0.1');
    assert.equal(d.provider_id, 'tabwright');
    // Both families when both are installed (this machine has chromium and firefox-esr), the default first.
    assert.deepEqual(d.browser_families, ['chromium', 'firefox']);
    assert.equal(d.default_browser_family, 'chromium');
    assert.deepEqual(Object.keys(d.family_limits.firefox.unsupported_methods), ['cdp.send']);
    assert.equal(d.transport, 'stdio-json');
    // Not self-declared: a candidate until the suite's recorded run says otherwise (none in this home).
    assert.equal(d.certification_tier, 'candidate');
    assert.equal(d.certification.granted_by, 'tabwright conformance');
    assert.equal(d.certification.last_run, null);
    assert.deepEqual([...d.capabilities.core_methods].sort(), [...CORE].sort());
    for (const m of [
      'page.go_back',
      'page.eval',
      'tab.list',
      'download.wait',
      'upload.set_files',
      'console.list',
    ])
      assert.ok(d.capabilities.optional_methods.includes(m), m);
    for (const f of ['element_refs', 'a11y_snapshot', 'full_page_screenshot', 'js_eval', 'file_upload'])
      assert.ok(d.capabilities.features.includes(f), f);
    for (const c of d.capabilities.custom_methods) {
      assert.match(c.name, /^[a-z]+\.[a-z_.]+$/);
      assert.ok(c.description && c.stability && c.input_schema && c.output_schema, c.name);
    }
    assert.ok(!d.capabilities.custom_methods.some((c: { name: string }) => c.name === 'cdp.send'));
    const click = d.capabilities.input_schemas['page.click'];
    assert.equal(click.type, 'object');
    assert.ok(
      click.properties.position && click.properties.element_ref && click.required.includes('session_id'),
    );
  });

  it('status is coherent with a browser present', async () => {
    const s = await p.call('provider.status');
    assert.equal(s.availability, 'ready');
    assert.equal(s.setup_state, 'complete');
    assert.equal(s.browser_detected, true);
    assert.equal(s.requires_manual_setup, false);
    assert.deepEqual(s.manual_steps, []);
    assert.equal(s.recommended_browser, 'chromium');
    assert.ok(s.diagnostics.some((d: { code: string }) => d.code === 'browser_detected'));
  });

  it('bad input never kills the process', async () => {
    let seen = p.orphans.length;
    const nextOrphan = async () => {
      const r = await p.nextOrphan(seen);
      seen += 1;
      assert.ok(r && !r.ok, 'an error envelope with id null');
      return r as Extract<typeof r, { ok: false }>;
    };
    p.sendRaw('this is not json');
    let r = await nextOrphan();
    assert.equal(r.id, null);
    assert.equal(r.error.code, 'invalid_request');
    assert.equal(r.error.details.reason, 'invalid_json');

    p.sendRaw('[1,2,3]');
    assert.equal((await nextOrphan()).error.code, 'invalid_request');
    p.sendRaw('{"protocol_version":"0.1","method":"provider.status"}');
    r = await nextOrphan();
    assert.equal(r.error.details.field, 'id');

    // A line over 16 MiB: invalid_request, and the stream goes on.
    p.sendRaw(Buffer.alloc(16 * 1024 * 1024 + 10, 'a'));
    r = await nextOrphan();
    assert.equal(r.error.code, 'invalid_request');
    assert.equal(r.error.details.reason, 'line_too_long');

    const wrongVersion = await p.request('provider.status', {}, { protocolVersion: '9.9' });
    assert.ok(!wrongVersion.ok);
    assert.equal(wrongVersion.error.code, 'invalid_request');
    assert.deepEqual(wrongVersion.error.details.supported_versions, ['0.1']);

    const unknown = await p.request('page.teleport', {});
    assert.ok(!unknown.ok);
    assert.equal(unknown.error.code, 'unsupported_method');
    const raw = await p.request('cdp.send', { method: 'Page.crash' });
    assert.ok(!raw.ok && raw.error.code === 'unsupported_method', 'cdp.send needs --allow-raw-cdp');

    const missing = await p.request('page.open', { url: 'http://127.0.0.1/' });
    assert.ok(!missing.ok);
    assert.equal(missing.error.code, 'invalid_request');
    assert.equal(missing.error.details.field, 'session_id');
    assert.match(missing.error.message, /session_id/);

    const mistyped = await p.request('page.wait', { session_id: 's', timeout_ms: 'soon' });
    assert.ok(!mistyped.ok);
    assert.equal(mistyped.error.details.field, 'timeout_ms');
    const tooLong = await p.request('page.wait', { session_id: 's', timeout_ms: 60_001 });
    assert.ok(!tooLong.ok && tooLong.error.details.field === 'timeout_ms');
    // Unknown optional fields (a later minor revision of the draft) are ignored, with a warning.
    const extra = await p.request('provider.status', { bogus: 1 });
    assert.ok(extra.ok, JSON.stringify(extra));
    assert.equal(extra.result.availability, 'ready');
    const warned = extra.warnings as { code: string; message: string; fields: string[] }[];
    assert.deepEqual(
      warned.map((w) => [w.code, w.fields]),
      [['unknown_params_ignored', ['bogus']]],
    );
    assert.match(warned[0]!.message, /bogus/);
    // Nested too, and a known field of the wrong type is still refused (naming that field).
    const nested = await p.request('page.wait', { session_id: 's', timeout_ms: 'soon', future_flag: true });
    assert.ok(!nested.ok && nested.error.code === 'invalid_request');
    assert.equal(nested.error.details.field, 'timeout_ms');
    // Unknown fields at two depths are dropped, then the call runs (and finds no such session).
    const deep = await p.request('page.screenshot', {
      session_id: 'sess_nope',
      future_flag: true,
      clip: { x: 0, y: 0, width: 10, height: 10, unit: 'px' },
    });
    assert.ok(!deep.ok && deep.error.code === 'session_not_found', JSON.stringify(deep));
    const notObject = await p.request('provider.status', 'x' as never);
    assert.ok(!notObject.ok && notObject.error.details.field === 'params');
    const unknownSession = await p.request('page.snapshot', { session_id: 'sess_nope' });
    assert.ok(!unknownSession.ok && unknownSession.error.code === 'session_not_found');

    assert.deepEqual(p.badLines, []);
    assert.ok(p.alive);
    assert.equal((await p.call('provider.status')).availability, 'ready');
  });

  it('fuzz: random garbage lines each get an error envelope, nothing else', async () => {
    const rnd = seededRandom(42);
    const samples = [
      '{',
      '{}',
      'null',
      '"str"',
      '{"id":{}}',
      '{"id":1}',
      '{"id":1,"protocol_version":0.1}',
      '{"id":1,"protocol_version":"0.1"}',
      '{"id":1,"protocol_version":"0.1","method":5}',
      '{"id":true,"protocol_version":"0.1","method":"provider.status"}',
      '{"id":"","protocol_version":"0.1","method":"provider.status"}',
      '{"id":1.5,"protocol_version":"0.1","method":"provider.status"}',
    ];
    for (let i = 0; i < 20; i++) {
      const bytes = Buffer.from(
        Array.from({ length: 1 + Math.floor(rnd() * 80) }, () => 32 + Math.floor(rnd() * 95)),
      );
      samples.push(bytes.toString('latin1'));
    }
    const before = p.orphans.length;
    const answered: number[] = [];
    for (const s of samples) p.sendRaw(s);
    const marker = await p.request('provider.status', {});
    assert.ok(marker.ok);
    // Garbage lines produce exactly one error each (with id null or the echoed id).
    const deadline = Date.now() + 5000;
    while (p.orphans.length - before < samples.length - 4 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    for (const o of p.orphans.slice(before)) {
      assert.equal(o.ok, false);
      if (!o.ok) answered.push(1);
      if (!o.ok) assert.equal(o.error.code, 'invalid_request');
    }
    assert.ok(answered.length >= samples.length - 4, `${answered.length} of ${samples.length} answered`);
    assert.deepEqual(p.badLines, []);
    assert.ok(p.alive);
  });

  it('pipelining: replies match ids and come in any order; one page stays in order', async () => {
    const s = await p.call('session.ensure', {});
    const slow = p.request('page.open', { session_id: s.session_id, url: `${server.url}/slow?ms=1500` });
    const snap = p.request('page.snapshot', { session_id: s.session_id });
    const status = p.request('provider.status', {});
    const order: string[] = [];
    await Promise.all([
      slow.then(() => order.push('open')),
      snap.then(() => order.push('snapshot')),
      status.then(() => order.push('status')),
    ]);
    assert.equal(order[0], 'status', 'status does not wait behind the page');
    assert.deepEqual(order.slice(1), ['open', 'snapshot'], 'operations on one page run in arrival order');
    const snapshot = await snap;
    assert.ok(snapshot.ok);
    assert.equal(snapshot.result.title, 'slow 1500');
    // Duplicate id while the first is in flight.
    const a = p.request(
      'page.open',
      { session_id: s.session_id, url: `${server.url}/slow?ms=500` },
      { id: 'dup' },
    );
    const b = p.request('provider.status', {}, { id: 'dup' });
    const first = await Promise.race([a, b]);
    assert.ok(!first.ok && first.error.details.reason === 'duplicate_id');
    await p.call('session.close', { session_id: s.session_id });
  });

  it('stdout carries only envelopes and the process exits when stdin ends', async () => {
    const q = spawnProvider(home.dir);
    await q.call('provider.status');
    const code = await q.close();
    assert.equal(code, 0);
    assert.deepEqual(q.badLines, []);
  });
});

describe('provider.status without a browser', () => {
  it('is unavailable, setup required, with the install command; session.ensure says setup_required', async () => {
    const home = tempHome();
    const p = spawnProvider(home.dir, [], {
      TABWRIGHT_BROWSER_PATHS: '/nonexistent/chromium',
      TABWRIGHT_CHROMIUM: '',
    });
    try {
      const s = await p.call('provider.status');
      assert.equal(s.availability, 'unavailable');
      assert.equal(s.setup_state, 'required');
      assert.equal(s.browser_detected, false);
      assert.equal(s.browser_running, false);
      assert.equal(s.requires_manual_setup, true);
      assert.ok(s.manual_steps.some((m: string) => /apt-get install -y chromium/.test(m)));
      const d = s.diagnostics.find((x: { code: string }) => x.code === 'browser_missing');
      assert.equal(d.level, 'error');
      assert.ok(d.manual_steps.length > 0);
      const r = await p.request('session.ensure', {});
      assert.ok(!r.ok);
      assert.equal(r.error.code, 'setup_required');
      const guide = await p.call('provider.setup_guide');
      assert.ok(guide.steps.length > 0);
    } finally {
      await p.close();
      home.cleanup();
    }
  });
});
