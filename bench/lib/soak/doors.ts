import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ProviderClient } from '../../../src/conformance/client.js';

/**
 * One agent session of the soak benchmark, through one door's real transport. The step mix
 * (loop.ts) names its targets; a door resolves them its own way: CSS selectors for the HTTP and
 * provider doors, refs read from the snapshot text for MCP (ours and Playwright MCP alike).
 */
export type Target = 'new_todo' | 'toggle' | 'clear_completed';

export interface SoakSession {
  open(url: string): Promise<void>;
  /** The snapshot's text (where the MCP doors find refs). */
  snapshot(): Promise<string>;
  /** Types `text` into the target and presses Enter. */
  type(target: Target, text: string, snapshot: string): Promise<void>;
  click(target: Target, snapshot: string): Promise<void>;
  waitText(text: string): Promise<void>;
  screenshot(): Promise<void>;
  network(): Promise<void>;
  back(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the page was when a target was missing: URL, readyState, the start of the body, each
 * resource's status and the last requests and console lines the door reports. A miss is explained
 * by these, not guessed at.
 */
const PAGE_STATE = `(() => ({ href: location.href, ready: document.readyState, title: document.title,
  body: (document.body ? document.body.innerHTML : document.documentElement.outerHTML).slice(0, 300),
  nav: performance.getEntriesByType('navigation').map((e) => e.type + ' ' + e.responseStatus),
  resources: performance.getEntriesByType('resource').map((e) => e.name.split('/').pop() + ' ' + e.responseStatus + ' ' + Math.round(e.duration) + 'ms') }))()`;

const SELECTORS: Record<Target, string> = {
  new_todo: '.new-todo',
  toggle: '.todo-list li:first-child .toggle',
  clear_completed: '.clear-completed',
};

/**
 * The deadline every call asks for (the engine's maximum is 60 s): a soak on a shared 2-core
 * machine starves each of 32 sessions for seconds at a time, and an agent there would ask for more
 * than the 10 s default. Timeouts still count as errors.
 */
export const DEADLINE_MS = 30_000;

/** A failed call of a door, with the door's own words. */
export class StepError extends Error {}

/**
 * As an agent does (and the MCP sessions below, whose refs come from a snapshot): a target that is
 * not on the page yet (an app still rendering after its open returned on `load`, seconds later on a
 * starved machine) is waited for with the door's own wait, then tried once more. Any other failure,
 * and a second miss, stay errors.
 */
async function againIfNotThere<T>(
  call: () => Promise<T>,
  waitFor: () => Promise<unknown>,
  where: () => Promise<string>,
): Promise<T> {
  // `where` describes the page: its URL, and its state (PAGE_STATE, requests, console) when the door can read them.
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof StepError) || !/element_not_found|nothing matches/i.test(err.message)) throw err;
    await waitFor().catch(() => {});
    try {
      return await call();
    } catch (again) {
      // Where the page was: a miss on the wrong page is another defect than one on a slow app.
      const at = await where().catch(() => '?');
      throw again instanceof StepError ? new StepError(`${again.message} (page at ${at})`) : again;
    }
  }
}

/** How long a client waits for a target that is not rendered yet. */
const RENDER_WAIT_MS = 10_000;

// ---------------------------------------------------------------- HTTP command API (tabwright serve)

// biome-ignore lint/suspicious/noExplicitAny: replies are JSON envelopes, read field by field
type Json = Record<string, any>;

/** POSTs one command to `base`'s `/playwright/command` and returns its `data`; a failed command throws. */
export function httpCommand(base: string): (body: Json) => Promise<Json> {
  return async (body) => {
    const res = await fetch(`${base}/playwright/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    if (json.ok !== true)
      throw new StepError(`${body.method}: ${String(json.msg ?? JSON.stringify(json)).slice(0, 300)}`);
    return json.data ?? {};
  };
}

export async function httpSession(base: string): Promise<SoakSession> {
  const post = httpCommand(base);
  const started = await post({ method: 'start' });
  const id = String(started.id);
  const cmd = (method: string, params: Json = {}) => post({ id, method, params });
  const waitFor = (t: Target) =>
    cmd('wait_for_element', { selector: SELECTORS[t], timeoutSeconds: RENDER_WAIT_MS / 1000 });
  const where = async () => {
    const url = String((await cmd('get_url', {})).url);
    const state = await cmd('execute_js', { body: PAGE_STATE }).catch((e) => ({ result: String(e) }));
    const reqs = await cmd('get_requests', { limit: 8 }).catch((e) => ({ requests: String(e) }));
    const cons = await cmd('get_console_logs', {}).catch((e) => ({ logs: String(e) }));
    return `${url}; state ${JSON.stringify(state.result)}; requests ${JSON.stringify(reqs.requests)}; console ${JSON.stringify(cons).slice(0, 600)}`;
  };
  return {
    open: async (url) => void (await cmd('go_to_url', { url, timeoutMs: DEADLINE_MS })),
    snapshot: async () => String((await cmd('get_browser_state', {})).text ?? ''),
    type: async (t, text) => {
      await againIfNotThere(
        () => cmd('input_text_by_selector', { selector: SELECTORS[t], text, timeoutMs: DEADLINE_MS }),
        () => waitFor(t),
        where,
      );
      await cmd('press_key', { key: 'Enter' });
    },
    click: async (t) =>
      void (await againIfNotThere(
        () => cmd('click_element_by_selector', { selector: SELECTORS[t], timeoutMs: DEADLINE_MS }),
        () => waitFor(t),
        where,
      )),
    waitText: async (text) => void (await cmd('wait_for_text', { text, timeoutSeconds: DEADLINE_MS / 1000 })),
    screenshot: async () => void (await cmd('screenshot', { timeoutMs: DEADLINE_MS })),
    network: async () => void (await cmd('get_requests', { limit: 20 })),
    back: async () => void (await cmd('go_back', { timeoutMs: DEADLINE_MS })),
    close: async () => void (await cmd('close', {})),
  };
}

// ---------------------------------------------------------------- provider protocol (tabwright provider)

export async function providerSession(
  client: ProviderClient,
  origin: string,
  name: string,
  /** False: no origin policy (no request filter, no policy proxy), to see what they cost. */
  restricted = true,
): Promise<SoakSession> {
  const call = async (method: string, params: Json = {}) => {
    try {
      return await client.call(method, sid ? { session_id: sid, ...params } : params, 2 * DEADLINE_MS + 5000);
    } catch (err) {
      throw new StepError(String(err instanceof Error ? err.message : err).slice(0, 300));
    }
  };
  let sid = '';
  sid = (
    await call('session.ensure', {
      client_session_id: name,
      isolation: 'per_session',
      ...(restricted ? { allowed_origins: [origin] } : {}),
      timeout_ms: DEADLINE_MS,
    })
  ).session_id as string;
  const waitFor = (t: Target) =>
    call('page.wait', { selector_present: SELECTORS[t], timeout_ms: RENDER_WAIT_MS });
  const where = async () => {
    const url = String((await call('page.snapshot', { timeout_ms: DEADLINE_MS })).url);
    const state = await call('page.eval', { script: PAGE_STATE, timeout_ms: DEADLINE_MS }).catch((e) => ({
      value: String(e),
    }));
    const reqs = await call('network.list', { limit: 8 }).catch((e) => ({ requests: String(e) }));
    const cons = await call('console.list', { limit: 10 }).catch((e) => ({ entries: String(e) }));
    return `${url}; state ${JSON.stringify(state.value)}; requests ${JSON.stringify(reqs.requests)}; console ${JSON.stringify(cons.entries).slice(0, 600)}`;
  };
  return {
    open: async (url) => void (await call('page.open', { url, timeout_ms: DEADLINE_MS })),
    snapshot: async () => String((await call('page.snapshot', { timeout_ms: DEADLINE_MS })).text ?? ''),
    type: async (t, text) =>
      void (await againIfNotThere(
        () => call('page.type', { selector: SELECTORS[t], text, submit: true, timeout_ms: DEADLINE_MS }),
        () => waitFor(t),
        where,
      )),
    click: async (t) =>
      void (await againIfNotThere(
        () => call('page.click', { selector: SELECTORS[t], timeout_ms: DEADLINE_MS }),
        () => waitFor(t),
        where,
      )),
    waitText: async (text) => void (await call('page.wait', { text_present: text, timeout_ms: DEADLINE_MS })),
    screenshot: async () => void (await call('page.screenshot', { timeout_ms: DEADLINE_MS })),
    network: async () => void (await call('network.list', { limit: 20 })),
    back: async () => void (await call('page.go_back', { timeout_ms: DEADLINE_MS })),
    close: async () => void (await call('session.close', {})),
  };
}

// ---------------------------------------------------------------- MCP (ours at /mcp, and Playwright MCP)

interface ToolReply {
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

/** The tool names and arguments of one MCP server. */
export interface McpDialect {
  navigate(url: string): [string, Json];
  snapshot(): [string, Json];
  type(ref: string, text: string): [string, Json];
  click(ref: string): [string, Json];
  waitText(text: string): [string, Json];
  screenshot(): [string, Json];
  network(): [string, Json];
  back(): [string, Json];
}

const t = { timeout_ms: DEADLINE_MS };
export const OUR_MCP: McpDialect = {
  navigate: (url) => ['navigate', { url, ...t }],
  snapshot: () => ['snapshot', { ...t }],
  type: (ref, text) => ['type', { ref, text, submit: true, ...t }],
  click: (ref) => ['click', { ref, ...t }],
  waitText: (text) => ['wait', { text_present: text, ...t }],
  screenshot: () => ['screenshot', { ...t }],
  network: () => ['network', { limit: 20 }],
  back: () => ['history', { action: 'back', ...t }],
};

export const PLAYWRIGHT_MCP: McpDialect = {
  navigate: (url) => ['browser_navigate', { url }],
  snapshot: () => ['browser_snapshot', {}],
  type: (ref, text) => ['browser_type', { element: 'new todo', target: ref, text, submit: true }],
  click: (ref) => ['browser_click', { element: 'todo control', target: ref }],
  waitText: (text) => ['browser_wait_for', { text }],
  screenshot: () => ['browser_take_screenshot', {}],
  network: () => ['browser_network_requests', {}],
  back: () => ['browser_navigate_back', {}],
};

const refRe = /\[ref=([^\]]+)\]/;

/** The ref of the target in a snapshot text (ours and Playwright MCP's both print `[ref=…]`). */
export function refOf(snapshot: string, t: Target): string {
  const lines = snapshot.split('\n').filter((l) => refRe.test(l));
  // The three apps name their controls differently ("New Todo Input", "What needs to be done?"; a
  // named or unnamed toggle-all box): the new-todo box is the first textbox, and with one todo on
  // the list its box is the last checkbox (the first is toggle-all).
  const line =
    t === 'new_todo'
      ? lines.find((l) => /textbox/.test(l))
      : t === 'toggle'
        ? lines
            .filter((l) => /checkbox/.test(l))
            .slice(1)
            .pop()
        : lines.find((l) => /button/.test(l) && /clear completed/i.test(l));
  const ref = line ? refRe.exec(line)?.[1] : undefined;
  if (!ref) throw new StepError(`no ${t} ref in the snapshot`);
  return ref;
}

function textOf(r: ToolReply): string {
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}

export async function mcpSession(transport: Transport, d: McpDialect): Promise<SoakSession> {
  const client = new Client({ name: 'tabwright-soak', version: '0' });
  await client.connect(transport);
  const call = async ([name, args]: [string, Json]): Promise<string> => {
    const r = (await client.callTool({ name, arguments: args }, undefined, {
      timeout: 2 * DEADLINE_MS + 5000,
    })) as ToolReply;
    if (r.isError) throw new StepError(`${name}: ${textOf(r).slice(0, 300)}`);
    return textOf(r);
  };
  // As an agent does: a target not in the snapshot yet (an app still rendering after navigate
  // returned) gets one more snapshot after a short pause.
  const find = async (snap: string, t: Target): Promise<string> => {
    try {
      return refOf(snap, t);
    } catch {
      await new Promise((r) => setTimeout(r, 300));
      const again = await call(d.snapshot());
      try {
        return refOf(again, t);
      } catch (err) {
        // What the page was: the snapshot's start and the door's request list.
        const reqs = await call(d.network()).catch((e) => String(e));
        throw new StepError(
          `${(err as Error).message}; snapshot ${JSON.stringify(again.slice(0, 500))}; network ${JSON.stringify(reqs.slice(-800))}`,
        );
      }
    }
  };
  return {
    open: async (url) => void (await call(d.navigate(url))),
    snapshot: () => call(d.snapshot()),
    type: async (t, text, snap) => void (await call(d.type(await find(snap, t), text))),
    click: async (t, snap) => void (await call(d.click(await find(snap, t)))),
    waitText: async (text) => void (await call(d.waitText(text))),
    screenshot: async () => void (await call(d.screenshot())),
    network: async () => void (await call(d.network())),
    back: async () => void (await call(d.back())),
    close: async () => {
      // Ours over streamable HTTP: DELETE ends the MCP session and closes its browser context now.
      const t = transport as { terminateSession?: () => Promise<void> };
      await t.terminateSession?.().catch(() => {});
      await client.close();
    },
  };
}

export function ourMcpTransport(base: string): Transport {
  return new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
}
