import { z } from 'zod';
import { ops } from '../../../engine/api.js';
import type { Engine } from '../../../engine/engine.js';
import type { Page } from '../../../engine/page.js';
import type { OriginPolicy, OriginPolicyInput } from '../../../engine/policy.js';
import type { Session } from '../../../engine/session.js';
import { type Method, type MethodSpec, type MethodTable, methodKit } from '../../kit/index.js';
import { CommandFailure, type Data } from '../envelope.js';
import type { FilesConfig } from '../files-config.js';
import type { Snowflake } from '../snowflake.js';
import type { Task, TaskTable } from '../tasks.js';

/** What a handler gets: the engine, the door's state and, for task methods, the task. */
export interface MethodContext {
  method: string;
  engine: Engine;
  tasks: TaskTable;
  snowflake: Snowflake;
  dataDir: string;
  /** The door's method table (list_methods, describe_method, batch steps). */
  table: HttpTable;
  /** The engine's launch mode when the server was told it (HttpServerOptions.engineHeadless). */
  engineHeadless?: boolean;
  /** Normalized envelope id, when one was sent (start) or required. */
  id?: string;
  /** The task for `task: 'existing' | 'existing-unlocked'` methods. */
  task?: Task;
  /** Server start time (get_config, list_tasks). */
  startedAt?: Date;
  /** Staging, upload_file, download_image and ocr_image settings (files-config.ts). */
  files?: FilesConfig;
  /** The server-wide origin ceiling (`tabwright serve --allow-origin`); a task may narrow it only. */
  originCeiling?: OriginPolicyInput;
  /** Runs one step of a batch through the same checks and evidence path as a single command (batch.ts). */
  runStep?: (method: string, params: unknown) => Promise<Data>;
}

/**
 * How a method relates to tasks:
 * - none: no id needed (shutdown);
 * - new: optional id, creates the task (start);
 * - existing: id required, runs under the task's lock (§6.1);
 * - existing-unlocked: id required, never waits for the lock (close, so a wedged task can always be closed).
 */
export type TaskMode = 'none' | 'new' | 'existing' | 'existing-unlocked';

/** A reply's fields for describe_method: wire name → what it holds (reference names, §8). */
export type ReplyFields = Readonly<Record<string, string>>;

/** What only this door knows of a method (the kit row's `meta`). */
export interface HttpMeta {
  task: TaskMode;
  /** Page-changing (reference §7.1): a successful run gets the one automatic screenshot. */
  evidence?: boolean;
  /** Fields dropped from `data` with responseMode "compact" (§11), besides the door-wide ones. */
  compactDrop?: readonly string[];
  /** Returns a click receipt (§10.1): compact mode drops its diagnostics unless `diagnostics: true`. */
  receipt?: boolean;
  /** The reply's fields (the evidence fields of page-changing methods are added by describe_method). */
  reply: ReplyFields;
}

/**
 * What the kit hands a row: one call of the method, by the envelope or as a batch step. `within`
 * gives the handler its context the way the method's task mode says (no task, a new one, or the
 * task under its lock) and adds the automatic evidence of page-changing methods. The kit validates
 * the parameters before, so a bad request never waits for a task's lock.
 */
export interface Call {
  within(name: string, meta: HttpMeta, run: (ctx: MethodContext) => Promise<Data>): Promise<Data>;
}

export type HttpMethod = Method<Call, HttpMeta, Data>;
export type HttpTable = MethodTable<Call, HttpMeta, Data>;

const kit = methodKit<Call, HttpMeta, Data>();

/** One wire method: `method({ name, summary, params, ops, meta, run })`, the handler typed by its schema. */
export function method<P extends z.ZodObject>(
  spec: MethodSpec<MethodContext, P, HttpMeta, Data>,
): HttpMethod {
  const { run, ...row } = spec;
  return kit({
    ...row,
    run: (call, params) => call.within(spec.name, spec.meta, async (ctx) => run(ctx, params)),
  });
}

/** Budget for launching a browser / creating a context on `start`. */
export const START_TIMEOUT_MS = 30_000;
/** Default budget for navigations (the engine's own default is 10 s; pages are often slower). */
export const NAVIGATION_TIMEOUT_MS = 30_000;
export const SCREENSHOT_TIMEOUT_MS = 30_000;
/** The engine refuses budgets above this (Deadline MAX_TIMEOUT_MS). */
export const ENGINE_MAX_TIMEOUT_MS = 60_000;
export const READ_TIMEOUT_MS = 10_000;
/** Per-element action budget (reference §9.9: browser.action.timeoutMs). */
export const ACTION_TIMEOUT_MS = 5_000;

export function sessionOf(ctx: MethodContext): Session {
  const s = ctx.task?.session;
  if (!s)
    throw new CommandFailure(`${ctx.method} 失败：任务 ${ctx.id} 还没有启动完成`, {
      errorCode: 'ACTION_FAILED',
      retryable: false,
    });
  return s;
}

/** The task's operated tab. */
export function pageOf(ctx: MethodContext): Page {
  return sessionOf(ctx).page();
}

/** The operated tab, or undefined when the task has none (evidence, receipts' surroundings). */
export function pageOrNone(ctx: MethodContext): Page | undefined {
  try {
    return ctx.task?.session?.page();
  } catch {
    return undefined;
  }
}

/** The tab's URL as the browser knows it now. */
export async function urlOf(page: Page): Promise<string> {
  return (await ops.info.call(page, {})).url;
}

/** Caps a caller's budget at what the engine accepts. */
export function budget(ms: number | undefined, fallback: number): number {
  return Math.max(1, Math.min(ms ?? fallback, ENGINE_MAX_TIMEOUT_MS));
}

/** A classified failure raised by the door itself: `<method> 失败：[CODE] reason`. */
export function fail(method: string, code: string, reason: string, extra: Data = {}): CommandFailure {
  const retryAfter: Record<string, number> = {
    STALE_ELEMENT: 300,
    ACTION_TIMEOUT: 1500,
    PAGE_NAVIGATING: 1000,
    NETWORK_ERROR: 5000,
  };
  const retryable = code in retryAfter;
  return new CommandFailure(`${method} 失败：[${code}] ${reason}`, {
    errorCode: code,
    retryable,
    retryAfterMs: retryable ? retryAfter[code] : undefined,
    ...extra,
  });
}

/** Plain failure without a code tag (literal reference messages such as `索引越界`). */
export function plainFailure(msg: string, code: string, extra: Data = {}): CommandFailure {
  const retryable = code === 'STALE_ELEMENT' || code === 'ACTION_TIMEOUT';
  return new CommandFailure(msg, {
    errorCode: code,
    retryable,
    retryAfterMs: retryable ? (code === 'STALE_ELEMENT' ? 300 : 1500) : undefined,
    ...extra,
  });
}

/** An element index: an integer (numeric strings accepted, as agents often send them). */
export const indexSchema = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/, '必须是整数')
    .transform((s) => Number(s)),
]);

/** Click / check modes of the reference (§10.2). */
export const clickMode = z.enum(['auto', 'native', 'mouse', 'js']).optional();
export const timeoutMsSchema = z.number().int().min(1).max(120_000).optional();

/** An origin policy in this door's terms (start, get_config): what the task's pages may reach. */
export function originPolicyData(policy: OriginPolicy): Data {
  return {
    restricted: policy.restricted,
    allowedOrigins: [...policy.origins],
    allowedHostPatterns: [...policy.hostPatterns],
    subresources: policy.restricted ? policy.subresources : undefined,
  };
}
