import { tempHome } from '../../engine.js';
import { type RawStdio, rawStdio } from '../../mcp-raw.js';
import { isRpcReply, type RpcCase, replyIds, rpcCase } from '../jsonrpc-cases.js';
import type { Rand } from '../rand.js';
import type { FuzzCase, FuzzDoor, Judged } from '../runner.js';

/** `tabwright mcp` over stdio, one raw line at a time (each followed by a ping that must be answered). */
export class McpStdioFuzz implements FuzzDoor {
  readonly name = 'mcp-stdio';
  readonly concurrency = 1;
  private readonly home = tempHome();
  private raw!: RawStdio;

  async start(): Promise<void> {
    this.raw = await rawStdio(this.home.dir);
  }

  generate(r: Rand, index: number): FuzzCase {
    const c = rpcCase(r, index);
    return { show: c.text.toString(), payload: c };
  }

  async send(fc: FuzzCase, hangMs: number): Promise<Judged> {
    const c = fc.payload as RpcCase;
    const p = this.raw.p;
    const before = await this.raw.exchange(c.text, hangMs);
    if (before === null) return { verdict: 'hang', detail: 'a ping sent after it got no reply' };
    const bad = before.find((l) => !isRpcReply(l.json));
    if (bad) return { verdict: 'non_structured', detail: `reply: ${bad.raw.slice(0, 200)}` };
    if (!c.owed) {
      return before.length
        ? {
            verdict: 'non_structured',
            detail: `a reply to a message owed none: ${before[0]!.raw.slice(0, 200)}`,
          }
        : { verdict: 'ok' };
    }
    if (before.length) return { verdict: 'ok' };
    if (!c.late) return { verdict: 'silent', detail: 'no reply (the ping after it was answered)' };
    // A request still running, or a batch: its reply comes after the ping's.
    const late = await p.waitFor(
      (l) => c.id === undefined || Array.isArray(l.json) || replyIds(l.json).includes(c.id),
      hangMs,
    );
    if (!late) return { verdict: 'hang', detail: `no reply within ${hangMs} ms` };
    p.consumeThrough(late);
    return isRpcReply(late.json)
      ? { verdict: 'ok' }
      : { verdict: 'non_structured', detail: late.raw.slice(0, 200) };
  }

  alive(): boolean {
    return this.raw.p.alive;
  }

  async restart(): Promise<void> {
    await this.raw.close().catch(() => {});
    this.raw = await rawStdio(this.home.dir);
  }

  async probe(): Promise<string | null> {
    const r = await this.raw.request(
      { jsonrpc: '2.0', id: 'probe', method: 'tools/call', params: { name: 'snapshot', arguments: {} } },
      30_000,
    );
    if (!r) return 'no reply to tools/call snapshot';
    const result = r.result as { isError?: boolean } | undefined;
    return result && !result.isError
      ? null
      : `tools/call snapshot failed: ${JSON.stringify(r).slice(0, 300)}`;
  }

  async close(): Promise<void> {
    await this.raw?.close();
    this.home.cleanup();
  }
}
