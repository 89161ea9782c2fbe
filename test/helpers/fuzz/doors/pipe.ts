import { randomUUID } from 'node:crypto';
import {
  deriveSessionKey,
  LineDecoder,
  PIPE_ACTIONS,
  PIPE_ERROR_CODES,
  ResponseMessage,
  signCommand,
} from '../../../../src/doors/pipe/sdk/index.js';
import { tempHome } from '../../engine.js';
import { type FixtureServer, startFixtureServer } from '../../fixture-server.js';
import { pipeHarness, type RelayedPipe, relayedPipe } from '../../pipe-run.js';
import type { Rand } from '../rand.js';
import type { FuzzCase, FuzzDoor, Judged } from '../runner.js';
import { garbageText, invalidUtf8, jsonValue, nastyString } from '../values.js';

const RULES = {
  version: '1.0',
  domains: { allowed: ['127.0.0.1', 'localhost'] },
  pipe_actions: { allowed: [...PIPE_ACTIONS], blocked: ['eval'] },
  storage: { key_prefixes: ['sgclaw_'] },
  // Fuzzing fails on purpose most of the time: the breaker must not turn every answer into circuit_open.
  circuit_breaker: { max_failures: 1_000_000, window_ms: 1000, cooldown_ms: 1 },
};
const KEYS = [
  'selector',
  'ref',
  'text',
  'url',
  'zombie_id',
  'key',
  'value',
  'area',
  'x',
  'y',
  'timeout_ms',
  'state',
];
const SELECTORS = ['h1', 'a', '#none', 'body', '[', 'e1', ''];

/** What one fuzz line becomes once the run's seq and key are known (at send time). */
type PipeCase =
  | { kind: 'raw'; text: string | Buffer }
  | {
      kind: 'command';
      action: string;
      params: unknown;
      domain: string;
      sign: 'right' | 'wrong';
      seq: 'next' | 'old' | 'ahead';
    };

/** `tabwright pipe`, its agent a relay to this process: raw lines and signed commands, one at a time. */
export class PipeFuzz implements FuzzDoor {
  readonly name = 'pipe';
  readonly concurrency = 1;
  private readonly home = tempHome();
  private fx!: FixtureServer;
  private pipe!: RelayedPipe;
  private key!: Buffer;
  private lastSeq = 0;
  private readonly decoder = new LineDecoder();
  private lines: string[] = [];
  private waiter: (() => void) | null = null;

  async start(): Promise<void> {
    this.fx ??= await startFixtureServer();
    this.lastSeq = 0;
    this.lines = [];
    const rules = pipeHarness(this.home.dir).writeJson('rules.json', RULES);
    this.pipe = await relayedPipe(this.home.dir, rules, ['--action-timeout', '3000']);
    this.pipe.conn.on('data', (chunk: Buffer) => {
      for (const ev of this.decoder.push(chunk))
        this.lines.push(ev.kind === 'line' ? ev.text : `<${ev.kind}>`);
      this.waiter?.();
    });
    const init = JSON.parse((await this.nextLine(60_000)) ?? '{}') as { hmac_seed?: string };
    this.key = deriveSessionKey(init.hmac_seed ?? '');
    this.pipe.conn.write(
      `${JSON.stringify({ type: 'init_ack', version: '1.0', agent_id: randomUUID(), supported_actions: [...PIPE_ACTIONS] })}\n`,
    );
  }

  private async nextLine(timeoutMs: number): Promise<string | null> {
    const until = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      const left = until - Date.now();
      if (left <= 0 || !this.alive()) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000));
        this.waiter = () => {
          clearTimeout(t);
          this.waiter = null;
          resolve();
        };
      });
    }
    return this.lines.shift()!;
  }

  generate(r: Rand): FuzzCase {
    const kind = r.weighted([
      [6, 'command'],
      [1, 'json'],
      [1, 'text'],
      [0.2, 'utf8'],
    ] as const);
    let c: PipeCase;
    if (kind === 'command') {
      const params: Record<string, unknown> = {};
      for (let i = 0; i < r.int(3); i++) params[r.pick(KEYS)] = jsonValue(r, KEYS, 2);
      if (r.chance(0.5)) params.selector = r.pick(SELECTORS);
      if (typeof params.url === 'string' || r.chance(0.2))
        params.url = r.pick([
          '$PAGE',
          'http://127.0.0.1:1/',
          'https://evil.example/',
          'file:///etc/hostname',
        ]);
      if ('timeout_ms' in params) params.timeout_ms = r.pick([0, 100, 1000, -1, 'x']);
      c = {
        kind: 'command',
        action: r.chance(0.9) ? r.pick(PIPE_ACTIONS) : r.pick(['eval', 'executeJsInPage', nastyString(r)]),
        params: r.chance(0.95) ? params : jsonValue(r),
        domain: r.pick(['127.0.0.1', '127.0.0.1', 'localhost', 'evil.example', '']),
        sign: r.chance(0.9) ? 'right' : 'wrong',
        seq: r.weighted([
          [9, 'next'],
          [0.5, 'old'],
          [0.5, 'ahead'],
        ] as const),
      };
    } else if (kind === 'json') {
      c = {
        kind: 'raw',
        text: JSON.stringify(jsonValue(r, ['type', 'seq', 'action', 'params', 'security', 'version'])),
      };
    } else if (kind === 'text') {
      c = {
        kind: 'raw',
        text: garbageText(r, '{"type":"command","seq":1,"action":"click","params":{},"security":{}}'),
      };
    } else c = { kind: 'raw', text: invalidUtf8(r) };
    return { show: c.kind === 'raw' ? c.text.toString() : JSON.stringify(c), payload: c };
  }

  /** The bytes of one line; `seq` for a command that consumes it when the host accepts it in order. */
  private line(c: PipeCase): { bytes: string | Buffer; seq?: number; authentic?: boolean } {
    if (c.kind === 'raw') return { bytes: c.text };
    const seq =
      c.seq === 'next' ? this.lastSeq + 1 : c.seq === 'old' ? Math.max(1, this.lastSeq) : this.lastSeq + 5;
    const params = JSON.parse(
      JSON.stringify(c.params).replaceAll('$PAGE', `${this.fx.url}/fixtures/nav/a.html`),
    );
    let hmac = '0'.repeat(64);
    let authentic = c.sign === 'right';
    try {
      hmac = signCommand(this.key, seq, c.action, c.domain, params);
    } catch {
      authentic = false; // params that cannot be canonicalized (a lone surrogate): the host cannot verify them
    }
    if (c.sign === 'wrong') hmac = hmac.replace(/^./, (d) => (d === '0' ? '1' : '0'));
    const cmd = {
      type: 'command',
      seq,
      action: c.action,
      params,
      security: { expected_domain: c.domain, hmac },
    };
    return { bytes: JSON.stringify(cmd), seq, authentic };
  }

  async send(fc: FuzzCase, hangMs: number): Promise<Judged> {
    const c = fc.payload as PipeCase;
    const { bytes, seq, authentic } = this.line(c);
    const text = bytes.toString();
    const blank = typeof bytes === 'string' && text.replace(/\r$/, '').trim() === '';
    this.pipe.conn.write(bytes);
    this.pipe.conn.write('\n');
    // Exactly one response per line (none for a blank one); a blank line is followed by nothing to wait for.
    if (blank)
      return this.lines.length
        ? { verdict: 'non_structured', detail: 'a response to a blank line' }
        : { verdict: 'ok' };
    const line = await this.nextLine(hangMs);
    if (line === null) return { verdict: 'hang', detail: `no response within ${hangMs} ms` };
    let msg: ResponseMessage;
    try {
      msg = ResponseMessage.parse(JSON.parse(line));
    } catch {
      return { verdict: 'non_structured', detail: line.slice(0, 200) };
    }
    if (!msg.success && !(PIPE_ERROR_CODES as readonly string[]).includes(msg.error?.code ?? '')) {
      return { verdict: 'non_structured', detail: `error code ${JSON.stringify(msg.error?.code)}` };
    }
    // An authentic command in order consumes its seq, refused or not.
    if (
      authentic &&
      seq === this.lastSeq + 1 &&
      msg.seq === seq &&
      !['hmac_mismatch', 'seq_out_of_order', 'invalid_message'].includes(msg.error?.code ?? '')
    )
      this.lastSeq = seq;
    if (seq !== undefined && msg.seq !== seq && msg.seq !== 0) {
      return { verdict: 'non_structured', detail: `response seq ${msg.seq} for command seq ${seq}` };
    }
    return { verdict: 'ok' };
  }

  alive(): boolean {
    return this.pipe.host.exitCode === null && this.pipe.host.signalCode === null;
  }

  async restart(): Promise<void> {
    await this.pipe.close().catch(() => {});
    await this.start();
  }

  async probe(): Promise<string | null> {
    const c: PipeCase = {
      kind: 'command',
      action: 'navigate',
      params: { url: '$PAGE' },
      domain: '127.0.0.1',
      sign: 'right',
      seq: 'next',
    };
    const { bytes } = this.line(c);
    this.pipe.conn.write(`${bytes}\n`);
    const line = await this.nextLine(30_000);
    const msg = line ? (JSON.parse(line) as { success?: boolean }) : null;
    return msg?.success ? null : `navigate: ${line ?? 'no response'}`;
  }

  async close(): Promise<void> {
    await this.pipe?.close();
    await this.fx?.close();
    this.home.cleanup();
  }
}
