import { tempHome } from '../../engine.js';
import { type HttpReply, postMcp, RawHttp } from '../../mcp-raw.js';
import { type ServeProcess, spawnServe } from '../../serve.js';
import { isRpcReply, type RpcCase, rpcCase } from '../jsonrpc-cases.js';
import type { Rand } from '../rand.js';
import type { FuzzCase, FuzzDoor, Judged } from '../runner.js';

interface HttpCase {
  rpc: RpcCase;
  session: 0 | 1 | 'none' | 'bogus';
  headers: Record<string, string>;
}

/** `/mcp` on `tabwright serve`: bodies POSTed four at a time into two MCP sessions (plus none and bogus ones). */
export class McpHttpFuzz implements FuzzDoor {
  readonly name = 'mcp-http';
  readonly concurrency = 4;
  private readonly home = tempHome();
  private serve!: ServeProcess;
  private sessions: RawHttp[] = [];

  async start(): Promise<void> {
    this.serve = await spawnServe(this.home.dir);
    this.sessions = [await RawHttp.open(this.endpoint), await RawHttp.open(this.endpoint)];
  }

  private get endpoint(): string {
    return `${this.serve.url}/mcp`;
  }

  generate(r: Rand, index: number): FuzzCase {
    const rpc = rpcCase(r, index);
    const session = r.weighted<HttpCase['session']>([
      [9, r.pick([0, 1] as const)],
      [0.5, 'none'],
      [0.5, 'bogus'],
    ]);
    const headers = r.weighted<Record<string, string>>([
      [19, {}],
      [0.5, { accept: 'application/json' }],
      [0.5, { 'content-type': 'text/plain' }],
    ]);
    const c: HttpCase = { rpc, session, headers };
    return {
      show: `[session ${session}${Object.keys(headers).length ? ` ${JSON.stringify(headers)}` : ''}] ${rpc.text.toString()}`,
      payload: c,
    };
  }

  async send(fc: FuzzCase, hangMs: number): Promise<Judged> {
    const c = fc.payload as HttpCase;
    const body = c.rpc.text.toString();
    let reply: HttpReply;
    try {
      if (typeof c.session === 'number')
        reply = await this.sessions[c.session]!.post(body, hangMs, c.headers);
      else {
        const sid: Record<string, string> =
          c.session === 'bogus' ? { 'mcp-session-id': 'no-such-session' } : {};
        reply = await postMcp(this.endpoint, body, { ...sid, ...c.headers }, hangMs);
        // An initialize without a session opened one: end it, or the fuzz fills the server's 32 sessions.
        const opened = reply.headers.get('mcp-session-id');
        if (opened) await new RawHttp(this.endpoint, opened).close();
      }
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError' || e.name === 'AbortError')
        return { verdict: 'hang', detail: `no reply within ${hangMs} ms` };
      return { verdict: 'non_structured', detail: `network error: ${e.message}` };
    }
    if (reply.status >= 500 && reply.status !== 503)
      return { verdict: 'non_structured', detail: `HTTP ${reply.status}: ${reply.text.slice(0, 200)}` };
    if (reply.status === 202) {
      return reply.text === '' && !c.rpc.owed
        ? { verdict: 'ok' }
        : {
            verdict: 'non_structured',
            detail: `202 for a message owed a reply: ${reply.text.slice(0, 200)}`,
          };
    }
    if (reply.messages.length === 0 || !reply.messages.every(isRpcReply)) {
      return { verdict: 'non_structured', detail: `HTTP ${reply.status}: ${reply.text.slice(0, 200)}` };
    }
    return { verdict: 'ok' };
  }

  alive(): boolean {
    return this.serve.alive;
  }

  async restart(): Promise<void> {
    await this.serve.close().catch(() => {});
    await this.start();
  }

  async probe(): Promise<string | null> {
    try {
      const s = await RawHttp.open(this.endpoint);
      const r = await s.post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'probe',
          method: 'tools/call',
          params: { name: 'snapshot', arguments: {} },
        }),
        30_000,
      );
      await s.close();
      const m = r.messages[0] as { result?: { isError?: boolean } } | undefined;
      return m?.result && !m.result.isError
        ? null
        : `tools/call snapshot: HTTP ${r.status} ${r.text.slice(0, 300)}`;
    } catch (err) {
      return `tools/call snapshot: ${(err as Error).message}`;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.close()));
    await this.serve?.close();
    this.home.cleanup();
  }
}
