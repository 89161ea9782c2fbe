import {
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Rand } from './rand.js';
import { garbageText, invalidUtf8, jsonValue, NASTY_NUMBERS, nastyString, setKey } from './values.js';

/**
 * Fuzz messages for the MCP door (both transports) and the oracle that
 * says whether one is owed a reply. The oracle is the SDK's own schemas,
 * not the door's check: a valid notification or response gets nothing,
 * everything else (requests, malformed text, malformed messages, batches
 * with a request or a bad member) gets a reply.
 */

/** Tools whose calls end quickly whatever the arguments (no long waits, no unbounded scripts). */
const QUICK_TOOLS = ['snapshot', 'tabs', 'console', 'network', 'history', 'dialog', 'downloads', 'storage'];
const ARG_KEYS = [
  'page_id',
  'ref',
  'selector',
  'text',
  'url',
  'find',
  'action',
  'max_depth',
  'interactive_only',
  'since_seq',
  'limit',
  'level',
  'timeout_ms',
  'key',
  'area',
];
/** Tool calls that work and reach the browser: they keep the engine busy while the rest is fuzzed. */
const WORKING_CALLS = [
  { name: 'snapshot', arguments: {} },
  { name: 'snapshot', arguments: { interactive_only: true } },
  { name: 'navigate', arguments: { url: 'about:blank' } },
  { name: 'navigate', arguments: { url: 'data:text/html,<h1>fuzz</h1><input><button>go</button>' } },
  { name: 'tabs', arguments: {} },
  { name: 'console', arguments: {} },
  { name: 'network', arguments: {} },
  { name: 'press', arguments: { key: 'Tab' } },
  { name: 'wait', arguments: { text_present: 'never there', timeout_ms: 300 } },
];
const METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'initialize',
  'resources/list',
  'prompts/get',
  'x/y',
  '',
];

export interface RpcCase {
  /** The exact text sent (a line without newline, or a body). */
  text: string | Buffer;
  /** Whether a reply is owed, by the SDK's schemas. */
  owed: boolean;
  /** Whether it holds a valid request, whose reply may come once its work is done (else at once). */
  late: boolean;
  /** The request's id when it has one the reply can carry. */
  id?: string | number;
}

export function rpcCase(r: Rand, index: number): RpcCase {
  const kind = r.weighted([
    [3, 'request'],
    [2, 'broken-message'],
    [1, 'notification'],
    [1, 'response'],
    [1, 'batch'],
    [1, 'json'],
    [1, 'text'],
    [0.2, 'utf8'],
  ] as const);
  switch (kind) {
    case 'request':
      return ofValue(request(r, index));
    case 'broken-message':
      return ofValue(broken(r, request(r, index)));
    case 'notification':
      return ofValue(notification(r));
    case 'response':
      return ofValue(
        r.chance(0.5)
          ? { jsonrpc: '2.0', id: requestId(r, index), result: jsonValue(r, ARG_KEYS) }
          : {
              jsonrpc: '2.0',
              id: requestId(r, index),
              error: { code: r.pick(NASTY_NUMBERS), message: nastyString(r) },
            },
      );
    case 'batch': {
      const members = Array.from({ length: r.int(4) }, (_, i) =>
        r.pick([
          () => request(r, index * 10 + i),
          () => notification(r),
          () => broken(r, request(r, index * 10 + i)),
        ])(),
      );
      return ofValue(members);
    }
    case 'json':
      return ofValue(jsonValue(r, ['jsonrpc', 'id', 'method', 'params', 'result', 'error']));
    case 'text': {
      const text = garbageText(r, JSON.stringify(request(r, index)));
      // Some mutations stay valid JSON (padding, a character inside a string): judge what it became.
      try {
        return { ...ofValue(JSON.parse(text)), text };
      } catch {
        // A blank line is no message at all (the framing skips it).
        return { text, owed: text.trim() !== '', late: false };
      }
    }
    case 'utf8':
      return { text: invalidUtf8(r), owed: true, late: false };
  }
}

function requestId(r: Rand, index: number): unknown {
  return r.weighted<unknown>([
    [6, `f${index}`],
    [3, 100_000 + index],
    // Shared by several inputs: requests in flight at once (on /mcp) reuse them.
    [1, r.pick(['same', 7])],
    [0.3, r.pick(NASTY_NUMBERS)],
    [0.3, nastyString(r)],
    [0.2, null],
    [0.2, { a: 1 }],
    [0.2, [1]],
  ]);
}

function request(r: Rand, index: number): Record<string, unknown> {
  const method = r.chance(0.9) ? r.pick(METHODS) : nastyString(r);
  const msg: Record<string, unknown> = { jsonrpc: '2.0', id: requestId(r, index), method };
  if (method === 'tools/call' && r.chance(0.5)) {
    msg.params = r.pick(WORKING_CALLS);
  } else if (method === 'tools/call') {
    const args: Record<string, unknown> = {};
    for (let i = 0; i < r.int(3); i++) args[r.pick(ARG_KEYS)] = jsonValue(r, ARG_KEYS, 2);
    // Deadlines stay short: a valid long wait is not what is being fuzzed.
    if ('timeout_ms' in args && typeof args.timeout_ms === 'number')
      args.timeout_ms = r.pick([1, 50, 500, -1, 1e9]);
    msg.params = {
      name: r.chance(0.85) ? r.pick(QUICK_TOOLS) : nastyString(r),
      arguments: r.chance(0.9) ? args : jsonValue(r),
    };
  } else if (method === 'initialize') {
    msg.params = {
      protocolVersion: r.pick(['2025-06-18', '2024-11-05', 'x']),
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '0' },
    };
  } else if (r.chance(0.5)) msg.params = jsonValue(r, ARG_KEYS);
  return msg;
}

function notification(r: Rand): Record<string, unknown> {
  const method = r.pick([
    'notifications/initialized',
    'notifications/cancelled',
    'notifications/progress',
    'notifications/x',
  ]);
  const msg: Record<string, unknown> = { jsonrpc: '2.0', method };
  if (method === 'notifications/cancelled')
    msg.params = { requestId: r.pick(['same', 7, 'f1', 100_001, nastyString(r)]) };
  else if (r.chance(0.3)) msg.params = jsonValue(r, ARG_KEYS);
  return msg;
}

/** A message made wrong in one way the fuzz found answered with silence. */
function broken(r: Rand, msg: Record<string, unknown>): Record<string, unknown> {
  const m = { ...msg };
  switch (r.int(7)) {
    case 0:
      m.jsonrpc = r.pick(['1.0', '2', 2, null, '']);
      break;
    case 1:
      m.params = r.pick(['x', 1, [1, 2], null, true]);
      break;
    case 2:
      setKey(m, r.pick(['extra', 'Id', 'params2', '__proto__']), jsonValue(r));
      break;
    case 3:
      m.id = r.pick([{ a: 1 }, [1], 1.5, true, null]);
      break;
    case 4:
      m.method = r.pick([1, null, { a: 1 }, ['ping']]);
      break;
    case 5:
      delete m.jsonrpc;
      break;
    default:
      m.result = {};
  }
  return m;
}

function ofValue(v: unknown): RpcCase {
  const text = JSON.stringify(v) ?? 'undefined';
  // Judged as the door will see it: parsed from the text.
  const value: unknown = JSON.parse(text === 'undefined' ? 'null' : text);
  const id =
    value !== null && typeof value === 'object' && !Array.isArray(value) && 'method' in value
      ? (value as { id?: unknown }).id
      : undefined;
  const isRequest = (m: unknown) => JSONRPCRequestSchema.safeParse(m).success;
  const valid = (m: unknown) => isRequest(m) || silent(m);
  return {
    text,
    owed: owesReply(value),
    late: Array.isArray(value) ? value.every(valid) && value.some(isRequest) : isRequest(value),
    id: typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined,
  };
}

const silent = (m: unknown) =>
  JSONRPCNotificationSchema.safeParse(m).success ||
  JSONRPCResultResponseSchema.safeParse(m).success ||
  JSONRPCErrorResponseSchema.safeParse(m).success;

function owesReply(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0 || !value.every(silent);
  return !silent(value);
}

/** A reply (or batch reply) shaped as JSON-RPC 2.0: result, or error with an integer code and a message. */
export function isRpcReply(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0 && v.every(isRpcReply);
  if (v === null || typeof v !== 'object') return false;
  const m = v as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || !('id' in m)) return false;
  if ('result' in m) return typeof m.result === 'object' && m.result !== null;
  const e = m.error as Record<string, unknown> | undefined;
  return !!e && Number.isInteger(e.code) && typeof e.message === 'string' && e.message.length > 0;
}

/** The ids a reply answers (a batch reply: each member's). */
export function replyIds(v: unknown): unknown[] {
  return Array.isArray(v) ? v.map((m) => (m as { id?: unknown }).id) : [(v as { id?: unknown }).id];
}
