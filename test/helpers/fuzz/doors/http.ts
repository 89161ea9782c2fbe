import { tempHome } from '../../engine.js';
import { type ServeProcess, spawnServe } from '../../serve.js';
import type { Rand } from '../rand.js';
import type { FuzzCase, FuzzDoor, Judged } from '../runner.js';
import { garbageText, jsonValue, nastyString } from '../values.js';

/** Methods that end quickly whatever their parameters (no lifecycle, no scripts, no human waits, no long waits). */
const METHODS = [
  'get_url',
  'get_title',
  'get_tabs',
  'list_methods',
  'get_config',
  'list_tasks',
  'list_jobs',
  'get_element_count',
  'find_text',
  'get_cookies',
  'get_browser_state',
  'get_page_snapshot',
  'diff_dom_text',
  'get_interactive_map',
  'get_form_state',
  'list_frames',
  'get_modals',
  'get_console_logs',
  'get_requests',
  'get_local_storage',
  'click_element_by_index',
  'click_element_by_selector',
  'input_text',
  'type_text',
  'press_key',
  'send_keys',
  'get_dropdown_options',
  'scroll',
  'get_element_text',
  'get_element_box',
  'clear_text',
  'mouse_move',
  'go_to_url',
  'go_back',
  'reload',
  'wait_for_element',
  'commands',
];
const PARAM_KEYS = [
  'index',
  'text',
  'url',
  'selector',
  'keys',
  'key',
  'down',
  'numPages',
  'timeoutMs',
  'timeoutSeconds',
  'x',
  'y',
  'mode',
  'filter',
  'limit',
  'commands',
  'stopOnError',
];
const URLS = ['about:blank', 'http://127.0.0.1:1/', 'notaurl', 'data:text/html,<p>x</p>', 'javascript:1'];

/** Short deadlines only: a valid long wait is not what is fuzzed. */
function boundTimes(p: Record<string, unknown>, r: Rand, method: string): void {
  if ('timeoutMs' in p) p.timeoutMs = r.pick([0, 1, 200, -1, 'x', 1e9]);
  // wait_for_element waits 30 s by default: always a short (or invalid) timeout.
  if ('timeoutSeconds' in p || method === 'wait_for_element')
    p.timeoutSeconds = r.pick([0, 0.2, 1, -1, 'x', 1e9]);
  if (typeof p.url === 'string' && r.chance(0.7)) p.url = r.pick(URLS);
}

function params(r: Rand, method: string, depth = 0): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  for (let i = 0; i < r.int(4); i++) p[r.pick(PARAM_KEYS)] = jsonValue(r, PARAM_KEYS, 2);
  if ('commands' in p) {
    p.commands =
      depth > 0
        ? jsonValue(r)
        : Array.from({ length: r.int(4) }, () => {
            const m = r.pick(METHODS);
            return { [m]: params(r, m, depth + 1) };
          });
  }
  boundTimes(p, r, method);
  return p;
}

/** POST /playwright/command on `tabwright serve`, four requests at a time, into one task (mostly). */
export class HttpCommandFuzz implements FuzzDoor {
  readonly name = 'http';
  readonly concurrency = 4;
  private readonly home = tempHome();
  private serve!: ServeProcess;
  private task = '';

  async start(): Promise<void> {
    this.serve = await spawnServe(this.home.dir);
    const r = await this.post(JSON.stringify({ method: 'start', params: {} }), 60_000);
    this.task = String((r.json as { data?: { id?: unknown } }).data?.id ?? '');
  }

  generate(r: Rand): FuzzCase {
    const kind = r.weighted([
      [6, 'command'],
      [1, 'envelope'],
      [1, 'text'],
    ] as const);
    let body: string;
    if (kind === 'text')
      body = garbageText(r, JSON.stringify({ id: '$TASK', method: r.pick(METHODS), params: {} }));
    else if (kind === 'envelope')
      body = JSON.stringify(jsonValue(r, ['id', 'method', 'params', 'responseMode', 'diagnostics']));
    else {
      const method = r.chance(0.9) ? r.pick(METHODS) : nastyString(r);
      body = JSON.stringify({
        id: r.chance(0.85) ? '$TASK' : jsonValue(r),
        method,
        params: r.chance(0.9) ? params(r, method) : jsonValue(r),
        ...(r.chance(0.2) ? { responseMode: r.pick(['compact', 'full', 1]) } : {}),
      });
    }
    return { show: body, payload: body };
  }

  private async post(
    body: string,
    timeoutMs: number,
  ): Promise<{ status: number; text: string; json: unknown }> {
    const res = await fetch(`${this.serve.url}/playwright/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body.replaceAll('$TASK', this.task),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, text, json };
  }

  async send(c: FuzzCase, hangMs: number): Promise<Judged> {
    let r: Awaited<ReturnType<HttpCommandFuzz['post']>>;
    try {
      r = await this.post(c.payload as string, hangMs);
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError') return { verdict: 'hang', detail: `no reply within ${hangMs} ms` };
      return { verdict: 'non_structured', detail: `network error: ${e.message}` };
    }
    const j = r.json as Record<string, unknown> | undefined;
    const envelope =
      r.status !== 500 &&
      !!j &&
      typeof j.ok === 'boolean' &&
      j.code === (j.ok ? 1 : 0) &&
      typeof j.data === 'object' &&
      j.data !== null &&
      (j.ok || typeof j.msg === 'string') &&
      (r.status === 400) === ((j.data as Record<string, unknown>).invalidArgument === true);
    return envelope
      ? { verdict: 'ok' }
      : { verdict: 'non_structured', detail: `HTTP ${r.status}: ${r.text.slice(0, 200)}` };
  }

  alive(): boolean {
    return this.serve.alive;
  }

  async restart(): Promise<void> {
    await this.serve.close().catch(() => {});
    await this.start();
  }

  async probe(): Promise<string | null> {
    const r = await this.post(JSON.stringify({ id: this.task, method: 'get_url', params: {} }), 30_000).catch(
      (err: Error) => ({ status: 0, text: err.message, json: undefined }),
    );
    return (r.json as { ok?: unknown } | undefined)?.ok === true
      ? null
      : `get_url: HTTP ${r.status} ${r.text.slice(0, 300)}`;
  }

  async close(): Promise<void> {
    await this.serve?.close();
    this.home.cleanup();
  }
}
