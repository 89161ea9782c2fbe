import { z } from 'zod';
import { ElementRef, ops } from '../../engine/api.js';
import type { Session } from '../../engine/session.js';
import { q } from './render.js';
import { operationOptions as opts, PageFields, strict, TargetFields, tool } from './tools.js';

/** Tools for inspection and state: evaluate, console, network, storage, ask_human. */

const MAX_VALUE_CHARS = 20_000;

function cut(s: string, max = MAX_VALUE_CHARS): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length - max} more chars)` : s;
}

export const evaluate = tool({
  name: 'evaluate',
  ops: [ops.evaluate, ops.evaluateOnElement],
  meta: { title: 'Run JavaScript' },
  summary:
    'Run JavaScript in the page: an expression, a function (called with args; with ref, with the element first), or a body using return. Result as JSON.',
  params: strict({
    script: z.string().min(1),
    args: z.array(z.unknown()).max(10).optional(),
    ref: TargetFields.ref,
    ...PageFields,
  }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    if (a.ref) {
      const v = await ops.evaluateOnElement.call(
        page,
        { ref: a.ref, source: a.script, arg: a.args?.[0] },
        opts(ctx, a),
      );
      return cut(JSON.stringify(v) ?? 'undefined');
    }
    const r = await ops.evaluate.call(page, { source: a.script, args: a.args }, opts(ctx, a));
    return r.type === 'undefined' ? 'undefined' : cut(JSON.stringify(r.value));
  },
});

export const consoleTool = tool({
  name: 'console',
  ops: [ops.consoleMessages],
  meta: { title: 'Console' },
  summary: 'Console messages and uncaught errors of the page (after since_seq).',
  params: strict({
    since_seq: z.number().int().min(0).optional(),
    level: z.enum(['debug', 'log', 'info', 'warning', 'error']).optional(),
    limit: z.number().int().min(1).max(500).optional(),
    page_id: PageFields.page_id,
  }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const list = await ops.consoleMessages.call(page, {
      since_seq: a.since_seq,
      level: a.level,
      limit: a.limit ?? 50,
    });
    if (!list.length) return 'no messages';
    return list
      .map(
        (m) =>
          `#${m.seq} ${m.type === 'pageerror' ? 'uncaught' : m.level} ${cut(m.text, 500)}${m.url ? ` (${m.url}${m.line !== null ? `:${m.line}` : ''})` : ''}`,
      )
      .join('\n');
  },
});

export const network = tool({
  name: 'network',
  ops: [ops.requests, ops.requestBody, ops.blocked],
  meta: { title: 'Network' },
  summary:
    "The session's requests (filter: URL substring, glob or /regex/), one with its body (request_id), or what the origin policy refused (blocked).",
  params: strict({
    blocked: z.boolean().optional().describe('what was refused, after since_seq'),
    filter: z.string().optional(),
    resource_type: z.string().optional().describe('e.g. document, xhr, fetch, script'),
    since_seq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    request_id: z.string().optional(),
    max_chars: z.number().int().min(100).max(100_000).optional(),
    page_id: PageFields.page_id,
  }),
  async run(ctx, a) {
    const session = await ctx.scope.sessionOf(a.page_id);
    if (a.blocked) return blockedLines(session, a.since_seq, a.limit ?? 50);
    if (a.request_id) {
      const e = await ops.requestBody.call(session, {
        request_id: a.request_id,
        max_chars: a.max_chars ?? 20_000,
      });
      const head = `${e.request_id} ${e.method} ${e.url}\n${e.state} ${e.status ?? ''} ${e.mime_type ?? ''}${e.failure ? ` failed: ${e.failure}` : ''}`;
      const post = e.post_data ? `\nrequest body: ${cut(e.post_data, 4000)}` : '';
      const body =
        e.body === null
          ? '\n(no body kept: only xhr/fetch bodies are)'
          : `\n${e.body}${e.returned_truncated || e.body_truncated ? '\n… (cut)' : ''}`;
      return head + post + body;
    }
    const list = await ops.requests.call(session, {
      filter: a.filter,
      resource_type: a.resource_type,
      since_seq: a.since_seq,
      page_id: a.page_id,
      limit: a.limit ?? 50,
    });
    if (!list.length) return 'no requests';
    return list
      .map(
        (e) =>
          `${e.request_id} ${e.method} ${e.failure ? `failed(${e.failure})` : (e.status ?? e.state)} ${e.resource_type} ${cut(e.url, 300)}${e.body_available ? ' [body]' : ''}`,
      )
      .join('\n');
  },
});

/** One line per refused request: seq, kind, method, url, where it came from (page or background). */
async function blockedLines(session: Session, sinceSeq: number | undefined, limit: number): Promise<string> {
  if (!session.policy.restricted) return 'no origin policy on this session: nothing is blocked';
  const list = (await ops.blocked.call(session, sinceSeq === undefined ? {} : { since_seq: sinceSeq })).slice(
    -limit,
  );
  const last = `last_seq ${session.network.lastSeq}`;
  if (!list.length) return `nothing blocked (${last})`;
  const lines = list.map(
    (b) =>
      `#${b.seq} blocked ${b.kind} ${b.method} ${cut(b.url, 300)} (${b.resource_type}${b.page_id ? `, ${b.page_id}` : ', no page'})`,
  );
  return [...lines, last].join('\n');
}

export const storage = tool({
  name: 'storage',
  ops: [ops.storageRead, ops.storageWrite, ops.storageDelete, ops.cookies, ops.setCookies, ops.clearCookies],
  meta: { title: 'Storage' },
  summary:
    'Read or change localStorage / sessionStorage of the page, or cookies of the session (set uses the page URL).',
  params: strict({
    area: z.enum(['local', 'session', 'cookies']),
    action: z.enum(['get', 'set', 'remove']).optional(),
    key: z.string().optional(),
    value: z.string().optional(),
    ...PageFields,
  }),
  async run(ctx, a) {
    const page = await ctx.scope.page(a.page_id);
    const action = a.action ?? 'get';
    if (a.area === 'cookies') {
      if (action === 'get') {
        const list = await ops.cookies.call(page.session, { urls: [page.url()] });
        const shown = list.filter((c) => !a.key || c.name === a.key);
        if (!shown.length) return 'no cookies';
        return shown.map((c) => `${c.name}=${cut(c.value, 300)} (${c.domain}${c.path})`).join('\n');
      }
      if (action === 'set') {
        if (!a.key || a.value === undefined) return 'give key and value';
        await ops.setCookies.call(page.session, {
          cookies: [{ name: a.key, value: a.value, url: page.url() }],
        });
        return `cookie ${a.key} set`;
      }
      await ops.clearCookies.call(page.session, {});
      return 'cookies cleared';
    }
    if (action === 'get') {
      const v = await ops.storageRead.call(page, { area: a.area, key: a.key }, opts(ctx, a));
      return v === null ? 'null' : cut(typeof v === 'string' ? v : JSON.stringify(v));
    }
    if (action === 'set') {
      if (!a.key || a.value === undefined) return 'give key and value';
      await ops.storageWrite.call(page, { area: a.area, key: a.key, value: a.value }, opts(ctx, a));
      return `${a.area}Storage ${q(a.key)} set`;
    }
    await ops.storageDelete.call(page, { area: a.area, key: a.key }, opts(ctx, a));
    return a.key ? `${a.area}Storage ${q(a.key)} removed` : `${a.area}Storage cleared`;
  },
});

export const askHuman = tool({
  name: 'ask_human',
  ops: [ops.requestHuman, ops.waitForHuman],
  meta: { title: 'Ask a person' },
  summary:
    'Ask the person at the tabwright dashboard (tabwright serve, GET /) a question or to act in the browser; waits up to wait_s, then check again with request_id.',
  params: strict({
    prompt: z.string().min(1).optional(),
    options: z.array(z.string()).max(20).optional(),
    request_id: z.string().optional(),
    wait_s: z.number().int().min(0).max(300).optional(),
    ref: ElementRef.optional(),
    page_id: PageFields.page_id,
  }),
  async run(ctx, a) {
    let id = a.request_id;
    if (!id) {
      const page = await ctx.scope.page(a.page_id);
      const rec = await ops.requestHuman.call(ctx.scope.engine, {
        kind: a.options ? 'question' : 'action',
        prompt: a.prompt,
        steps: a.options ? [{ prompt: a.prompt ?? '', options: a.options }] : undefined,
        owner: { door: 'mcp', session_id: page.session.id, page_id: page.id },
        url: page.url(),
      });
      id = rec.id;
    }
    const waitMs = (a.wait_s ?? 60) * 1000;
    const rec = await Promise.race([
      ops.waitForHuman.call(ctx.scope.engine, { id, timeout_ms: waitMs }),
      new Promise<never>((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true }),
      ),
    ]);
    const answers = rec.steps
      .filter((s) => s.answer !== undefined)
      .map((s) => (Array.isArray(s.answer) ? s.answer.join(', ') : s.answer));
    if (rec.status === 'answered')
      return `${rec.id} answered${rec.marked_done ? ' (done in the browser)' : ''}: ${answers.join(' | ')}`;
    return `${rec.id} ${rec.status}; expires in ${Math.max(0, Math.round((rec.expires_at - Date.now()) / 1000))} s. Call ask_human with request_id to wait again.`;
  },
});

export const MORE_TOOLS = [evaluate, consoleTool, network, storage, askHuman];
