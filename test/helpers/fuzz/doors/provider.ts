import { ERROR_CODES } from '../../../../src/engine/errors.js';
import { tempHome } from '../../engine.js';
import { LineProcess, type ReplyLine } from '../../line-process.js';
import type { Rand } from '../rand.js';
import type { FuzzCase, FuzzDoor, Judged } from '../runner.js';
import { garbageText, invalidUtf8, jsonValue, nastyString } from '../values.js';

/** Methods that end quickly whatever the parameters (no scripts, no raw CDP, nothing that closes our session). */
const METHODS = [
  'provider.status',
  'provider.describe',
  'session.ensure',
  'page.open',
  'page.snapshot',
  'page.click',
  'page.type',
  'page.press',
  'page.hover',
  'page.scroll',
  'page.select',
  'page.wait',
  'page.screenshot',
  'tab.list',
  'console.list',
  'cookie.list',
  'network.list',
  'storage.get',
  'download.list',
  'tabwright.frames',
  'tabwright.blocked_requests',
  'tabwright.snapshot_diff',
  'x.unknown',
];
const KEYS = [
  'session_id',
  'page_id',
  'url',
  'element_ref',
  'selector',
  'text',
  'key',
  'timeout_ms',
  'text_present',
  'selector_present',
  'max_nodes',
  'interactive_only',
  'replace',
  'key_by_key',
  'isolation',
  'wait_until',
];

function envelope(r: Rand, index: number): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (let i = 0; i < r.int(4); i++) params[r.pick(KEYS)] = jsonValue(r, KEYS, 2);
  if (r.chance(0.6)) params.session_id = '$SESSION';
  if ('timeout_ms' in params) params.timeout_ms = r.pick([1, 100, 1000, -1, 'x', 1e9]);
  if (typeof params.url === 'string' && r.chance(0.7))
    params.url = r.pick(['about:blank', 'http://127.0.0.1:1/', 'x']);
  const e: Record<string, unknown> = {
    protocol_version: r.chance(0.92) ? '0.1' : r.pick(['0.2', 0.1, null, '']),
    id: r.weighted<unknown>([
      [8, `f${index}`],
      [2, 10_000 + index],
      [0.3, null],
      [0.3, ''],
      [0.3, { a: 1 }],
      [0.2, 'x'.repeat(300)],
    ]),
    method: r.chance(0.9) ? r.pick(METHODS) : nastyString(r),
    params: r.chance(0.9) ? params : jsonValue(r, KEYS),
  };
  if (r.chance(0.05)) e[r.pick(['extra', 'Method'])] = 1;
  if (r.chance(0.05)) delete e.id;
  return e;
}

/** The id a reply must carry: the request's when usable, else null. */
function expectedId(e: unknown): string | number | null {
  const id =
    e !== null && typeof e === 'object' && !Array.isArray(e) ? (e as { id?: unknown }).id : undefined;
  if (typeof id === 'string' && id.length > 0 && id.length <= 256) return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  return null;
}

function isReply(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const m = v as Record<string, unknown>;
  if (m.protocol_version !== '0.1' || !('id' in m) || typeof m.ok !== 'boolean') return false;
  if (m.ok) return typeof m.result === 'object' && m.result !== null;
  const e = m.error as Record<string, unknown> | undefined;
  return (
    !!e &&
    (ERROR_CODES as readonly unknown[]).includes(e.code) &&
    typeof e.message === 'string' &&
    typeof e.retryable === 'boolean' &&
    typeof e.details === 'object'
  );
}

interface ProviderCase {
  text: string | Buffer;
  /** The id of the one reply owed; undefined when the line is blank (no reply). */
  id: string | number | null | undefined;
}

/** `tabwright provider` over stdio, one raw line at a time, each followed by a provider.status that must be answered. */
export class ProviderFuzz implements FuzzDoor {
  readonly name = 'provider';
  readonly concurrency = 1;
  private readonly home = tempHome();
  private p!: LineProcess;
  private session = '';
  private sentinels = 0;

  async start(): Promise<void> {
    this.p = new LineProcess(process.execPath, ['bin/tabwright.js', 'provider'], {
      TABWRIGHT_HOME: this.home.dir,
      TABWRIGHT_LOG: process.env.TABWRIGHT_LOG ?? 'warn',
    });
    const r = await this.request(
      { protocol_version: '0.1', id: 'start', method: 'session.ensure', params: {} },
      60_000,
    );
    this.session = String((r?.json as { result?: { session_id?: unknown } })?.result?.session_id ?? '');
  }

  private async request(e: Record<string, unknown>, timeoutMs: number): Promise<ReplyLine | null> {
    this.p.send(JSON.stringify(e));
    const l = await this.p.waitFor((x) => (x.json as { id?: unknown } | undefined)?.id === e.id, timeoutMs);
    if (l) this.p.consumeThrough(l);
    return l;
  }

  generate(r: Rand, index: number): FuzzCase {
    const kind = r.weighted([
      [6, 'envelope'],
      [1, 'json'],
      [1, 'text'],
      [0.2, 'utf8'],
    ] as const);
    let c: ProviderCase;
    if (kind === 'envelope') {
      const e = envelope(r, index);
      c = { text: JSON.stringify(e), id: expectedId(e) };
    } else if (kind === 'json') {
      const v = jsonValue(r, ['protocol_version', 'id', 'method', 'params']);
      c = { text: JSON.stringify(v), id: expectedId(v) };
    } else if (kind === 'text') {
      const text = garbageText(r, JSON.stringify(envelope(r, index)));
      let id: string | number | null | undefined = text.trim() === '' ? undefined : null;
      try {
        id = expectedId(JSON.parse(text));
      } catch {}
      c = { text, id };
    } else c = { text: invalidUtf8(r), id: null };
    return { show: c.text.toString(), payload: c };
  }

  async send(fc: FuzzCase, hangMs: number): Promise<Judged> {
    const c = fc.payload as ProviderCase;
    const text = typeof c.text === 'string' ? c.text.replaceAll('$SESSION', this.session) : c.text;
    this.p.send(text);
    const sentinel = `sentinel-${++this.sentinels}`;
    this.p.send(JSON.stringify({ protocol_version: '0.1', id: sentinel, method: 'provider.status' }));
    const done = await this.p.waitFor(
      (l) => (l.json as { id?: unknown } | undefined)?.id === sentinel,
      hangMs,
    );
    if (!done) return { verdict: 'hang', detail: 'a provider.status sent after it got no reply' };
    const before = this.p
      .consumeThrough(done)
      .filter((l) => !(l.json as { event?: unknown } | undefined)?.event);
    const bad = before.find((l) => !isReply(l.json));
    if (bad) return { verdict: 'non_structured', detail: bad.raw.slice(0, 200) };
    if (c.id === undefined) {
      return before.length
        ? { verdict: 'non_structured', detail: `a reply to a blank line: ${before[0]!.raw}` }
        : { verdict: 'ok' };
    }
    if (before.length > 1)
      return { verdict: 'non_structured', detail: `${before.length} replies to one line` };
    if (before.length === 1) {
      const got = (before[0]!.json as { id: unknown }).id;
      return got === c.id || got === null
        ? { verdict: 'ok' }
        : {
            verdict: 'non_structured',
            detail: `reply id ${JSON.stringify(got)}, expected ${JSON.stringify(c.id)}`,
          };
    }
    if (c.id === null)
      return { verdict: 'silent', detail: 'no reply (the provider.status after it was answered)' };
    // A request still running: its reply comes later, with its id.
    const late = await this.p.waitFor((l) => (l.json as { id?: unknown } | undefined)?.id === c.id, hangMs);
    if (!late) return { verdict: 'hang', detail: `no reply within ${hangMs} ms` };
    this.p.consumeThrough(late);
    return isReply(late.json)
      ? { verdict: 'ok' }
      : { verdict: 'non_structured', detail: late.raw.slice(0, 200) };
  }

  alive(): boolean {
    return this.p.alive;
  }

  async restart(): Promise<void> {
    await this.p.close().catch(() => {});
    await this.start();
  }

  async probe(): Promise<string | null> {
    const r = await this.request(
      { protocol_version: '0.1', id: 'probe', method: 'page.snapshot', params: { session_id: this.session } },
      30_000,
    );
    return (r?.json as { ok?: unknown } | undefined)?.ok === true
      ? null
      : `page.snapshot: ${r?.raw.slice(0, 300) ?? 'no reply'}`;
  }

  async close(): Promise<void> {
    await this.p?.close();
    this.home.cleanup();
  }
}
