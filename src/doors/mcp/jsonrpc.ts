import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from './limits.js';

/**
 * The one check of incoming JSON-RPC 2.0 that both MCP transports apply
 * before the SDK sees a message (stdio lines and `/mcp` bodies), so a
 * malformed message gets the same answer on either: -32700 when the text
 * is not JSON, -32600 when it is not a valid message. A batch (an array)
 * is checked as a whole: one bad member refuses the batch and nothing in
 * it runs. The SDK's own schema stays the last word on what is valid; the
 * checks before it only name the problem.
 */

export { MAX_MESSAGE_BYTES };
/** Most messages in one batch (the SDK's limit on `/mcp`). */
export const MAX_BATCH = 100;
/** Longest id echoed back in an error reply; a longer one is answered with id null. */
const MAX_ECHOED_ID_CHARS = 256;

const FIELDS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'];

/** An error reply the transport sends itself; id null when the message's id cannot be trusted. */
export interface ErrorReply {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: Record<string, unknown> };
}

export type Checked =
  | { ok: true; messages: JSONRPCMessage[]; batch: boolean }
  | { ok: false; reply: ErrorReply };

export function errorReply(
  code: number,
  message: string,
  id: RequestId | null = null,
  data?: Record<string, unknown>,
): ErrorReply {
  return { jsonrpc: '2.0', id, error: data ? { code, message, data } : { code, message } };
}

/** The reply to a message over MAX_MESSAGE_BYTES (it was skipped, not read). */
export function tooLargeReply(): ErrorReply {
  return errorReply(
    ErrorCode.InvalidRequest,
    `Invalid Request: the message is longer than ${MAX_MESSAGE_BYTES} bytes (8 MiB), the limit per message. Nothing was run; send less per message (files by path, not inline).`,
    null,
    { max_bytes: MAX_MESSAGE_BYTES },
  );
}

/** Parses one message text (a stdio line, a `/mcp` body) and checks it. */
export function parseMessageText(text: string): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      reply: errorReply(
        ErrorCode.ParseError,
        `Parse error: the message is not valid JSON (${why.slice(0, 200)}). Send one JSON-RPC 2.0 message (or a batch array) per line or request body.`,
      ),
    };
  }
  return checkMessages(value);
}

/** Checks a parsed value: one message, or a batch of 1 to MAX_BATCH messages. */
export function checkMessages(value: unknown): Checked {
  if (!Array.isArray(value)) {
    const r = checkOne(value);
    if (r.ok) return { ok: true, messages: [r.message], batch: false };
    return invalid(`Invalid Request: ${r.reason}`, readableId(value));
  }
  if (value.length === 0 || value.length > MAX_BATCH) {
    return invalid(
      `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages, this one ${value.length}. Send the messages one by one or in smaller batches.`,
    );
  }
  const messages: JSONRPCMessage[] = [];
  const ids = new Set<string>();
  for (const [i, member] of value.entries()) {
    const r = checkOne(member);
    if (!r.ok)
      return invalid(`Invalid Request: batch member ${i}: ${r.reason} Nothing in the batch was run.`);
    const id = requestIdOf(r.message);
    if (id !== undefined) {
      if (ids.has(idKey(id))) {
        return invalid(
          `Invalid Request: batch member ${i} repeats the request id ${JSON.stringify(id)}; ids must be unique. Nothing in the batch was run.`,
        );
      }
      ids.add(idKey(id));
    }
    messages.push(r.message);
  }
  return { ok: true, messages, batch: true };
}

function invalid(message: string, id: RequestId | null = null): Checked {
  return { ok: false, reply: errorReply(ErrorCode.InvalidRequest, message, id) };
}

type One = { ok: true; message: JSONRPCMessage } | { ok: false; reason: string };

function checkOne(v: unknown): One {
  const no = (reason: string): One => ({ ok: false, reason });
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return no(`a message is a JSON object, not ${kindOf(v)}.`);
  }
  const m = v as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return no(`"jsonrpc" must be "2.0", not ${shown(m.jsonrpc)}.`);
  const extra = Object.keys(m).filter((k) => !FIELDS.includes(k));
  if (extra.length) {
    return no(
      `unknown top-level field(s) ${extra.slice(0, 5).map(shown).join(', ')}; a message has only ${FIELDS.join(', ')}.`,
    );
  }
  if ('id' in m && !isRequestId(m.id)) return no(`"id" must be a string or an integer, not ${kindOf(m.id)}.`);
  if ('method' in m) {
    if (typeof m.method !== 'string') return no(`"method" must be a string, not ${kindOf(m.method)}.`);
    if ('result' in m || 'error' in m) return no('a message is a request or a response, not both.');
    if ('params' in m && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params))) {
      return no(`"params" must be an object (MCP takes named parameters), not ${kindOf(m.params)}.`);
    }
  } else if (!('result' in m) && !('error' in m)) {
    return no('a message needs "method" (a request or notification) or "result"/"error" (a response).');
  } else if (!('id' in m)) {
    return no('a response needs the "id" of the request it answers.');
  }
  const parsed = JSONRPCMessageSchema.safeParse(v);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'message';
    return no(`${where}: ${issue?.message ?? 'not a JSON-RPC 2.0 message'}.`);
  }
  return { ok: true, message: parsed.data };
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/** The id of a refused message, when it is one we can echo safely; else null. */
function readableId(v: unknown): RequestId | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const id = (v as { id?: unknown }).id;
  if (typeof id === 'string' && id.length > MAX_ECHOED_ID_CHARS) return null;
  return isRequestId(id) ? id : null;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number' && !Number.isInteger(v)) return `the number ${String(v).slice(0, 30)}`;
  return `${typeof v} ${shown(v)}`;
}

function shown(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/** The id of a request (method and id), else undefined. */
export function requestIdOf(m: JSONRPCMessage): RequestId | undefined {
  return 'method' in m && 'id' in m ? (m.id as RequestId) : undefined;
}

/** 1 and "1" are different ids. */
export function idKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/**
 * The requests of one client (a stdio connection, an MCP HTTP session) that
 * wait for their response. A second request with an id still in use would
 * take the first one's response, and over HTTP leave the first POST without
 * a reply forever, so it is refused. A cancelled request gets no response
 * (MCP), so its id is free again at once.
 */
export class InFlight {
  private readonly ids = new Set<string>();

  /**
   * Registers the requests among `messages` and releases the ids they cancel.
   * Refuses all of them when one reuses an id in flight (nothing registered).
   */
  admit(messages: JSONRPCMessage[]): { refused: ErrorReply } | { cancelled: RequestId[] } {
    for (const m of messages) {
      const id = requestIdOf(m);
      if (id !== undefined && this.ids.has(idKey(id))) {
        return {
          refused: errorReply(
            ErrorCode.InvalidRequest,
            `Invalid Request: the id ${JSON.stringify(id)} is already used by a request still in progress; give every request its own id. Nothing was run.`,
          ),
        };
      }
    }
    const cancelled: RequestId[] = [];
    for (const m of messages) {
      const id = requestIdOf(m);
      if (id !== undefined) this.ids.add(idKey(id));
      const target = cancelledRequestOf(m);
      if (target !== undefined && this.ids.delete(idKey(target))) cancelled.push(target);
    }
    return { cancelled };
  }

  /** The error reply with id null when its id belongs to a request in progress (it must not pass for that one's). */
  unclaimed(reply: ErrorReply): ErrorReply {
    return reply.id !== null && this.ids.has(idKey(reply.id)) ? { ...reply, id: null } : reply;
  }

  /** Frees the ids of requests that will get no response (refused as a whole after admit). */
  release(messages: JSONRPCMessage[]): void {
    for (const m of messages) {
      const id = requestIdOf(m);
      if (id !== undefined) this.ids.delete(idKey(id));
    }
  }

  /** An outgoing response frees its id. */
  settle(m: JSONRPCMessage): void {
    if (!('method' in m) && 'id' in m && m.id !== undefined) this.ids.delete(idKey(m.id));
  }
}

function cancelledRequestOf(m: JSONRPCMessage): RequestId | undefined {
  if (!('method' in m) || m.method !== 'notifications/cancelled' || 'id' in m) return undefined;
  const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
  return isRequestId(id) ? id : undefined;
}
