import { z } from 'zod';
import { PipeError } from './errors.js';

/**
 * The four message types of protocol 1.0, validated with zod. Unknown extra
 * fields are tolerated (ignored) so a peer may add fields; the fields below
 * are required with these types. `version` is checked separately so a wrong
 * version fails with version_mismatch, not invalid_message.
 */

export const InitMessage = z.object({
  type: z.literal('init'),
  version: z.string(),
  hmac_seed: z.string(),
  capabilities: z.array(z.string()),
});
export type InitMessage = z.infer<typeof InitMessage>;

export const InitAckMessage = z.object({
  type: z.literal('init_ack'),
  version: z.string(),
  agent_id: z.string().min(1),
  supported_actions: z.array(z.string()),
});
export type InitAckMessage = z.infer<typeof InitAckMessage>;

export const SecurityFields = z.object({
  expected_domain: z.string(),
  hmac: z.string(),
});
export type SecurityFields = z.infer<typeof SecurityFields>;

const JsonObject = z.record(z.string(), z.unknown());

export const CommandMessage = z.object({
  type: z.literal('command'),
  seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  action: z.string().min(1),
  params: JsonObject,
  security: SecurityFields,
});
export type CommandMessage = z.infer<typeof CommandMessage>;

export const Timing = z.object({
  queue_ms: z.number().int().min(0),
  exec_ms: z.number().int().min(0),
});
export type Timing = z.infer<typeof Timing>;

export const ResponseError = z.object({ code: z.string(), message: z.string() });

export const ResponseMessage = z.object({
  type: z.literal('response'),
  /** 0 answers a line that could not be attributed to a command (not JSON, too large, no seq). */
  seq: z.number().int().min(0),
  success: z.boolean(),
  data: JsonObject,
  aom_snapshot: z.array(z.unknown()),
  timing: Timing,
  error: ResponseError.optional(),
});
export type ResponseMessage = z.infer<typeof ResponseMessage>;

/** Browser → agent. */
export const BrowserMessage = z.discriminatedUnion('type', [InitMessage, ResponseMessage]);
export type BrowserMessage = z.infer<typeof BrowserMessage>;
/** Agent → browser. */
export const AgentMessage = z.discriminatedUnion('type', [InitAckMessage, CommandMessage]);
export type AgentMessage = z.infer<typeof AgentMessage>;

export type AnyMessage = BrowserMessage | AgentMessage;

const ALL = z.discriminatedUnion('type', [InitMessage, InitAckMessage, CommandMessage, ResponseMessage]);

/** Parses one line into a JSON object (invalid_message when it is not one). */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new PipeError(
      'invalid_message',
      `The line is not valid JSON (${err instanceof Error ? err.message : String(err)}). Send one JSON object per line.`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new PipeError('invalid_message', 'Each line must be one JSON object.');
  }
  return value as Record<string, unknown>;
}

function issueText(err: z.ZodError): string {
  const i = err.issues[0];
  if (!i) return 'invalid message';
  const path = i.path.map(String).join('.') || '(message)';
  return `${path}: ${i.message}`;
}

/** Validates a parsed object as one of `schema`'s messages; invalid_message names the first bad field. */
export function validateMessage<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  throw new PipeError('invalid_message', `Invalid message: ${issueText(res.error)}.`);
}

/** Parses and validates a line as any protocol message. */
export function parseMessage(text: string): AnyMessage {
  return validateMessage(ALL, parseJsonObject(text));
}
