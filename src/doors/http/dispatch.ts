import type { z } from 'zod';
import type { Engine } from '../../engine/engine.js';
import { log } from '../../engine/log.js';
import type { OriginPolicyInput } from '../../engine/policy.js';
import { compactData, compactFailure } from './compact.js';
import {
  CommandFailure,
  type Data,
  type EnvelopeOptions,
  failure,
  invalidArgument,
  type Reply,
  success,
} from './envelope.js';
import { mapEngineError } from './error-map.js';
import { autoCapture, PAGE_CHANGING } from './evidence.js';
import type { FilesConfig } from './files-config.js';
import { METHODS, type MethodContext, type MethodDef } from './methods.js';
import type { Snowflake } from './snowflake.js';
import { suggestMethods } from './suggest.js';
import { normalizeTaskId, type TaskTable } from './tasks.js';

/** How long a command waits for the previous command of its task (reference §6.1). */
export const SERIALIZE_WAIT_MS = 5_000;

export interface DoorState extends EnvelopeOptions {
  engine: Engine;
  tasks: TaskTable;
  snowflake: Snowflake;
  dataDir: string;
  /** Server start time, appended to "unknown task" messages. */
  startedAt: Date;
  serializeWaitMs: number;
  engineHeadless?: boolean;
  /** Staging, upload_file, download_image and ocr_image settings. */
  files: FilesConfig;
  /** The server-wide origin ceiling (`--allow-origin`), when there is one. */
  originCeiling?: OriginPolicyInput;
}

/** Runs one `POST /playwright/command` body (raw text) and returns the reply to send. */
export async function dispatch(rawBody: string | undefined, state: DoorState): Promise<Reply> {
  let method = '(unknown)';
  let unknownParams: string[] | undefined;
  let env: Envelope | undefined;
  const began = Date.now();
  try {
    env = parseBody(rawBody);
    method = requireMethod(env.method);
    const def = METHODS.get(method);
    if (!def) {
      const suggestions = suggestMethods(method, [...METHODS.keys()]);
      const hint = suggestions.length > 0 ? `，你是不是想用 ${suggestions.join(' / ')}？` : '';
      throw invalidArgument(`不支持的方法：${method}${hint}`, { suggestions });
    }
    const raw = batchShortcut(method, paramsObject(method, env.params));
    unknownParams = unknownKeys(def.schema, raw);
    const params = validate(def, raw);
    const reply = await runMethod(def, env.id, params, state);
    const data =
      env.responseMode === 'compact'
        ? compactData(def, reply, env.diagnostics === true, (m) => METHODS.get(m))
        : reply;
    log.debug({ method, ms: Date.now() - began, ok: true }, 'http command');
    return success(withUnknown(data, unknownParams), state);
  } catch (err) {
    const f = err instanceof CommandFailure ? err : mapEngineError(method, err);
    log.debug({ method, ms: Date.now() - began, ok: false, msg: f.message }, 'http command');
    const fdata =
      env?.responseMode === 'compact'
        ? compactFailure(METHODS.get(method), f.data, env.diagnostics === true, (m) => METHODS.get(m))
        : f.data;
    return failure(new CommandFailure(f.message, withUnknown(fdata, unknownParams)), state);
  }
}

interface Envelope {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  responseMode?: unknown;
  diagnostics?: unknown;
}

function parseBody(raw: string | undefined): Envelope {
  if (raw === undefined || raw.trim() === '') throw invalidArgument('请求体不是合法 JSON：请求体为空');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw invalidArgument(`请求体不是合法 JSON：${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidArgument(
      '请求体不是合法 JSON：顶层必须是对象，形如 {"id":"1001","method":"get_url","params":{}}',
    );
  }
  return parsed as Envelope;
}

function requireMethod(m: unknown): string {
  if (m === undefined || m === null || m === '') throw invalidArgument('缺少参数 method');
  if (typeof m !== 'string') throw invalidArgument('参数 method 无效：必须是字符串', { field: 'method' });
  return m.trim();
}

function paramsObject(method: string, p: unknown): Data {
  if (p === undefined || p === null) return {};
  if (typeof p !== 'object' || Array.isArray(p)) {
    throw invalidArgument(`${method} 失败：参数 params 无效：必须是 JSON 对象`, { field: 'params' });
  }
  // A null parameter means "not given".
  return Object.fromEntries(Object.entries(p as Data).filter(([, v]) => v !== null));
}

function unknownKeys(schema: z.ZodObject, params: Data): string[] | undefined {
  const known = new Set(Object.keys(schema.shape));
  const extra = Object.keys(params).filter((k) => !known.has(k));
  return extra.length > 0 ? extra : undefined;
}

function validate(def: MethodDef, params: Data): Data {
  // An empty string for a required text parameter counts as missing.
  const res = def.schema.safeParse(params);
  if (res.success) return res.data as Data;
  const issue = res.error.issues[0]!;
  const field = String(issue.path[0] ?? '');
  const value = params[field];
  if (value === undefined || value === '') {
    throw invalidArgument(`${def.name} 失败：缺少参数 ${field}`, { field });
  }
  throw invalidArgument(`${def.name} 失败：参数 ${field} 无效：${issue.message}`, { field });
}

function taskIdOf(method: string, raw: unknown): string {
  const id = normalizeTaskId(raw);
  if (id !== undefined) return id;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw > 0) {
    throw invalidArgument(
      `${method} 失败：参数 id 无效：数字超出 JavaScript 安全整数范围，精度已丢失，请把 id 作为字符串传入`,
      {
        field: 'id',
      },
    );
  }
  throw invalidArgument(`${method} 失败：参数 id 无效：必须是数字或数字字符串`, { field: 'id' });
}

/**
 * `commands` shortcut (§13.2): params without `commands`, with exactly one key that is not
 * `stopOnError`, is a one-step batch (`"params":{"get_title":{}}`).
 */
function batchShortcut(method: string, raw: Data): Data {
  if (method !== 'commands' || 'commands' in raw) return raw;
  const keys = Object.keys(raw);
  if (keys.length === 1 && keys[0] !== 'stopOnError') return { commands: [raw] };
  return raw;
}

/** One batch step through the same checks and evidence path as a single command (§13.3). */
async function runStep(
  method: string,
  rawParams: unknown,
  parent: MethodContext,
  state: DoorState,
): Promise<Data> {
  const def = METHODS.get(method);
  if (!def) {
    const suggestions = suggestMethods(method, [...METHODS.keys()]);
    const hint = suggestions.length > 0 ? `，你是不是想用 ${suggestions.join(' / ')}？` : '';
    throw invalidArgument(`不支持的方法：${method}${hint}`, { suggestions });
  }
  if (def.name === 'commands') throw invalidArgument('commands 不能嵌套：批量里的每一项必须是单条命令');
  if (def.task === 'new') throw invalidArgument(`${method} 不能放在批量里执行：请单独调用`);
  const raw = paramsObject(method, rawParams);
  const unknownParams = unknownKeys(def.schema, raw);
  const params = validate(def, raw);
  const ctx: MethodContext = { ...parent, method: def.name, runStep: undefined };
  const data =
    def.task === 'none' || def.task === 'existing-unlocked'
      ? await def.run(ctx, params)
      : await runWithEvidence(def, ctx, params, state);
  return withUnknown(data, unknownParams);
}

async function runMethod(def: MethodDef, rawId: unknown, params: Data, state: DoorState): Promise<Data> {
  const base: MethodContext = {
    startedAt: state.startedAt,
    method: def.name,
    engine: state.engine,
    tasks: state.tasks,
    snowflake: state.snowflake,
    dataDir: state.dataDir,
    engineHeadless: state.engineHeadless,
    files: state.files,
    originCeiling: state.originCeiling,
  };
  const idGiven = rawId !== undefined && rawId !== null && rawId !== '';
  if (def.task === 'none') return def.run(base, params);
  if (def.task === 'new')
    return def.run({ ...base, id: idGiven ? taskIdOf(def.name, rawId) : undefined }, params);

  if (!idGiven) throw invalidArgument(`${def.name} 失败：缺少参数 id`, { field: 'id' });
  const id = taskIdOf(def.name, rawId);
  const task = state.tasks.get(id);
  if (!task) throw unknownTask(id, state);
  if (def.task === 'existing-unlocked') return def.run({ ...base, id, task }, params);
  const ctx: MethodContext = { ...base, id, task };
  ctx.runStep = (stepMethod, rawParams) => runStep(stepMethod, rawParams, ctx, state);

  const waitStarted = Date.now();
  if (!(await task.lock.acquire(state.serializeWaitMs))) {
    throw new CommandFailure(
      `${def.name} 失败：[ACTION_TIMEOUT] 这个 id 的上一条命令还在执行，已等待 ${state.serializeWaitMs} ms：本条命令没有执行，稍后重发即可（同一个 id 的命令请一条一条发）`,
      {
        errorCode: 'ACTION_TIMEOUT',
        serialized: true,
        started: false,
        retryable: true,
        retryAfterMs: 1000,
        waitedMs: Date.now() - waitStarted,
      },
    );
  }
  try {
    // The task may have been closed (or its start failed) while we waited.
    if (state.tasks.get(id) !== task || !task.session) throw unknownTask(id, state);
    return await runWithEvidence(def, ctx, params, state);
  } finally {
    task.lock.release();
  }
}

function unknownTask(id: string, state: DoorState): CommandFailure {
  const at = state.startedAt.toISOString();
  return new CommandFailure(
    `没有找到对应的浏览器实例：${id}（服务启动时间：${at}；服务重启后之前的 id 都会失效，请先 start）`,
    {
      errorCode: 'ACTION_FAILED',
      retryable: false,
      taskNotFound: true,
      id,
      serverStartedAt: at,
    },
  );
}

function withUnknown(data: Data, unknownParams: string[] | undefined): Data {
  return unknownParams ? { ...data, unknownParams } : data;
}

/**
 * Runs a task method and, when it is page-changing and succeeded, takes the
 * one automatic screenshot (§7.1). Single commands and batch steps both come
 * through here, so both get exactly one capture per successful step.
 */
export async function runWithEvidence(
  def: MethodDef,
  ctx: MethodContext,
  params: Data,
  state: DoorState,
): Promise<Data> {
  const data = await def.run(ctx, params);
  if (!PAGE_CHANGING.has(def.name) || !ctx.task?.session) return data;
  let page: ReturnType<NonNullable<typeof ctx.task.session>['page']> | undefined;
  try {
    page = ctx.task.session.page();
  } catch {
    page = undefined;
  }
  return { ...data, ...(await autoCapture(state.dataDir, ctx.task, page)) };
}
