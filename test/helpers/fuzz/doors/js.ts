import { type JsCli, jsCli, rawDaemonRequest } from '../../js-cli.js';
import type { Rand } from '../rand.js';
import type { FuzzCase, FuzzDoor, Judged } from '../runner.js';
import { garbageText, invalidUtf8, jsonValue, nastyString, setKey } from '../values.js';

/** Snippets that end at once (the daemon runs code for real: nothing that loops or stops it). */
const CODE = [
  '1 + 1',
  'undefined',
  'null',
  '({a: 1})',
  'throw new Error("x")',
  'throw 1',
  '[1, 2',
  'await 1',
  'globalThis.x = (globalThis.x ?? 0) + 1',
  '"中文"',
  'Symbol()',
];
// Never 'stop': it would end the daemon on purpose.
const OPS = ['ping', 'status', 'eval', 'eval', 'eval', '', 'Ping', 'explode', 'STOP '];

interface JsCase {
  bytes: string | Buffer;
  /** Half-close after writing (a request without its newline). */
  end: boolean;
}

/** The `tabwright js` daemon's Unix socket, one connection per request, four at a time. */
export class JsDaemonFuzz implements FuzzDoor {
  readonly name = 'js';
  readonly concurrency = 4;
  private js!: JsCli;

  async start(): Promise<void> {
    this.js = jsCli(`fuzz-${process.pid}`);
    const r = await this.js.cli(['--start']);
    if (r.code !== 0) throw new Error(`tabwright js --start failed: ${r.stderr}`);
  }

  generate(r: Rand): FuzzCase {
    const kind = r.weighted([
      [6, 'request'],
      [1, 'json'],
      [1, 'text'],
      [0.2, 'utf8'],
    ] as const);
    let line: string | Buffer;
    if (kind === 'request') {
      const req: Record<string, unknown> = { op: r.chance(0.9) ? r.pick(OPS) : jsonValue(r) };
      if (req.op === 'eval' || r.chance(0.1)) req.code = r.chance(0.9) ? r.pick(CODE) : jsonValue(r);
      if (r.chance(0.5)) req.timeoutMs = r.pick([1, 1000, 60_000, 0, -5, 'x', 1e12, null]);
      if (r.chance(0.1)) setKey(req, nastyString(r), jsonValue(r));
      line = JSON.stringify(req);
    } else if (kind === 'json') line = JSON.stringify(jsonValue(r, ['op', 'code', 'timeoutMs']));
    else if (kind === 'text')
      line = garbageText(r, JSON.stringify({ op: 'eval', code: '1 + 1', timeoutMs: 1000 }));
    else line = invalidUtf8(r);
    const end = r.chance(0.1);
    const c: JsCase = {
      bytes: end ? line : typeof line === 'string' ? `${line}\n` : Buffer.concat([line, Buffer.from('\n')]),
      end,
    };
    return { show: `${end ? '[no newline] ' : ''}${line.toString()}`, payload: c };
  }

  async send(fc: FuzzCase, hangMs: number): Promise<Judged> {
    const c = fc.payload as JsCase;
    const out = await rawDaemonRequest(this.js.socket, c.bytes, hangMs, c.end);
    if (out === null) return { verdict: 'hang', detail: `no answer within ${hangMs} ms` };
    const lines = out.split('\n').filter(Boolean);
    if (lines.length === 0) {
      // Nothing at all: is the daemon still there?
      const ping = await rawDaemonRequest(this.js.socket, '{"op":"ping"}\n', 5000);
      if (!ping) this.up = false;
    }
    if (lines.length !== 1)
      return {
        verdict: lines.length ? 'non_structured' : 'silent',
        detail: `${lines.length} answer lines: ${out.slice(0, 200)}`,
      };
    let res: Record<string, unknown>;
    try {
      res = JSON.parse(lines[0]!);
    } catch {
      return { verdict: 'non_structured', detail: lines[0]!.slice(0, 200) };
    }
    const e = res.error as Record<string, unknown> | undefined;
    const ok =
      typeof res.ok === 'boolean' &&
      typeof res.op === 'string' &&
      (res.ok || res.timedOut === true || (typeof e?.message === 'string' && typeof e.name === 'string'));
    return ok ? { verdict: 'ok' } : { verdict: 'non_structured', detail: lines[0]!.slice(0, 200) };
  }

  alive(): boolean {
    // The daemon's socket answers (a refused connection is a crash).
    return this.up;
  }

  private up = true;

  async restart(): Promise<void> {
    await this.js.stop().catch(() => {});
    await this.start();
    this.up = true;
  }

  async probe(): Promise<string | null> {
    const r = await this.js.run('1 + 1');
    return r.code === 0 && r.stdout.trim() === '2'
      ? null
      : `eval 1 + 1: exit ${r.code} ${r.stderr.slice(0, 300)}`;
  }

  async close(): Promise<void> {
    await this.js?.stop();
  }
}
