import { z } from 'zod';
import { log } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import type { OriginPolicyInput } from '../../engine/policy.js';
import { type DispatchHooks, dispatch as dispatchIn, InvalidParams } from '../kit/index.js';
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
import { autoCapture } from './evidence.js';
import type { FilesConfig } from './files-config.js';
import {
  type Call,
  type HttpMeta,
  type HttpMethod,
  type HttpTable,
  type MethodContext,
  pageOrNone,
} from './methods/common.js';
import type { Snowflake } from './snowflake.js';
import { suggestMethods } from './suggest.js';
import { normalizeTaskId, type TaskTable } from './tasks.js';
import { issueInChinese } from './zh-issues.js';

/** How long a command waits for the previous command of its task (reference §6.1). */
export const SERIALIZE_WAIT_MS = 5_000;

/** What the door holds before its first command (the dashboard's and the server's part). */
export interface DoorBase extends EnvelopeOptions {
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

export interface DoorState extends DoorBase {
  /** The door's method table (methods.ts), loaded with the first command (server.ts). */
  table: HttpTable;
}

/** Runs one `POST /playwright/command` body (raw text) and returns the reply to send. */
export async function dispatch(rawBody: string | undefined, state: DoorState): Promise<Reply> {
  let name = '(unknown)';
  let unknownParams: string[] | undefined;
  let env: Envelope | undefined;
  const began = Date.now();
  const lookup = (n: string) => state.table.get(n);
  try {
    env = parseBody(rawBody);
    name = requireMethod(env.method);
    const m = methodOf(name, state.table);
    const raw = batchShortcut(name, paramsObject(name, env.params));
    unknownParams = unknownKeys(m, raw);
    const reply = await run(state.table, name, commandCall(env.id, state), raw);
    const data =
      env.responseMode === 'compact' ? compactData(m, reply, env.diagnostics === true, lookup) : reply;
    log.debug({ method: name, ms: Date.now() - began, ok: true }, 'http command');
    return success(withUnknown(data, unknownParams), state);
  } catch (err) {
    const f = err instanceof CommandFailure ? err : mapEngineError(name, err);
    log.debug({ method: name, ms: Date.now() - began, ok: false, msg: f.message }, 'http command');
    const fdata =
      env?.responseMode === 'compact'
        ? compactFailure(lookup(name), f.data, env.diagnostics === true, lookup)
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

/**
 * A request that is not a command envelope at all (no body, not JSON, no method). Upstream's
 * handler answers these with HTTP 200 and a failed envelope (only parameter errors of a method
 * are 400), so a client that treats non-2xx as a transport error still reads the message.
 */
export function envelopeFailure(msg: string): CommandFailure {
  return new CommandFailure(msg, { errorCode: 'INVALID_ARGUMENT', started: false, retryable: false });
}

function parseBody(raw: string | undefined): Envelope {
  if (raw === undefined || raw.trim() === '')
    throw envelopeFailure('请求体不能为空，需要 {"id":123,"method":"start","params":{}}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw envelopeFailure(`请求体不是合法 JSON：${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw envelopeFailure(
      '请求体不是合法 JSON 对象：顶层必须是对象，形如 {"id":"1001","method":"get_url","params":{}}',
    );
  }
  return parsed as Envelope;
}

function requireMethod(m: unknown): string {
  if (m === undefined || m === null || m === '') throw envelopeFailure('缺少参数 method');
  if (typeof m !== 'string') throw invalidArgument('参数 method 无效：必须是字符串', { field: 'method' });
  return m.trim();
}

/** An unknown method, with the closest names (§5.3). */
function unsupported(name: string, table: HttpTable): CommandFailure {
  const suggestions = suggestMethods(name, table.names());
  const hint = suggestions.length > 0 ? `，你是不是想用 ${suggestions.join(' / ')}？` : '';
  return invalidArgument(`不支持的方法：${name}${hint}`, { suggestions });
}

function methodOf(name: string, table: HttpTable): HttpMethod {
  const m = table.get(name);
  if (!m) throw unsupported(name, table);
  return m;
}

function paramsObject(method: string, p: unknown): Data {
  if (p === undefined || p === null) return {};
  if (typeof p !== 'object' || Array.isArray(p)) {
    throw invalidArgument(`${method} 失败：参数 params 无效：必须是 JSON 对象`, { field: 'params' });
  }
  // A null parameter means "not given".
  return Object.fromEntries(Object.entries(p as Data).filter(([, v]) => v !== null));
}

function unknownKeys(m: HttpMethod, params: Data): string[] | undefined {
  const known = new Set(m.params instanceof z.ZodObject ? Object.keys(m.params.shape) : []);
  const extra = Object.keys(params).filter((k) => !known.has(k));
  return extra.length > 0 ? extra : undefined;
}

/**
 * Bad parameters in this door's words: a missing (or empty) one is `<method> 失败：缺少参数 <name>`,
 * any other `<method> 失败：参数 <name> 无效：<why>` (HTTP 400, data.invalidArgument).
 */
function invalidParams(e: InvalidParams): CommandFailure {
  const field = e.field;
  const value = e.raw && typeof e.raw === 'object' ? (e.raw as Data)[field] : undefined;
  if (value === undefined || value === '') {
    return invalidArgument(`${e.method} 失败：缺少参数 ${field}`, { field });
  }
  const why = e.issues[0] ? issueInChinese(e.issues[0], e.raw) : '无效';
  return invalidArgument(`${e.method} 失败：参数 ${field} 无效：${why}`, {
    field,
  });
}

/** The kit's one lookup-validate-run path, with this door's unknown-method and bad-parameter replies. */
async function run(table: HttpTable, name: string, call: Call, raw: Data): Promise<Data> {
  const hooks: DispatchHooks<Call, HttpMeta, Data> = {
    unknownMethod: (n) => unsupported(n, table),
    failure: (err) =>
      err instanceof InvalidParams ? invalidParams(err) : err instanceof Error ? err : new Error(String(err)),
  };
  return (await dispatchIn(table, name, call, raw, hooks)).result;
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
  name: string,
  rawParams: unknown,
  parent: MethodContext,
  state: DoorState,
): Promise<Data> {
  const m = methodOf(name, state.table);
  if (m.name === 'commands') throw invalidArgument('commands 不能嵌套：批量里的每一项必须是单条命令');
  if (m.meta.task === 'new') throw invalidArgument(`${name} 不能放在批量里执行：请单独调用`);
  const raw = paramsObject(name, rawParams);
  const unknownParams = unknownKeys(m, raw);
  // A step runs in its batch's task, under the batch's lock.
  const step: Call = {
    within: (method, meta, runIt) => {
      const ctx: MethodContext = { ...parent, method, runStep: undefined };
      return meta.task === 'none' || meta.task === 'existing-unlocked'
        ? runIt(ctx)
        : withEvidence(meta, ctx, runIt);
    },
  };
  return withUnknown(await run(state.table, name, step, raw), unknownParams);
}

/** A command from the envelope: its task mode decides the id rules, the task and its lock (§6.1). */
function commandCall(rawId: unknown, state: DoorState): Call {
  return {
    async within(method, meta, runIt) {
      const base: MethodContext = {
        startedAt: state.startedAt,
        method,
        engine: state.engine,
        table: state.table,
        tasks: state.tasks,
        snowflake: state.snowflake,
        dataDir: state.dataDir,
        engineHeadless: state.engineHeadless,
        files: state.files,
        originCeiling: state.originCeiling,
      };
      const idGiven = rawId !== undefined && rawId !== null && rawId !== '';
      if (meta.task === 'none') return runIt(base);
      if (meta.task === 'new') return runIt({ ...base, id: idGiven ? taskIdOf(method, rawId) : undefined });

      if (!idGiven) throw invalidArgument(`${method} 失败：缺少参数 id`, { field: 'id' });
      const id = taskIdOf(method, rawId);
      const task = state.tasks.get(id);
      if (!task) throw unknownTask(id, state);
      if (meta.task === 'existing-unlocked') return runIt({ ...base, id, task });
      const ctx: MethodContext = { ...base, id, task };
      ctx.runStep = (stepMethod, rawParams) => runStep(stepMethod, rawParams, ctx, state);

      const waitStarted = Date.now();
      if (!(await task.lock.acquire(state.serializeWaitMs))) {
        throw new CommandFailure(
          `${method} 失败：[COMMAND_TIMEOUT] 这个 id 的上一条命令还在执行，已等待 ${state.serializeWaitMs} ms：本条命令没有开始执行，重发是安全的（同一个 id 的命令请一条一条发）`,
          {
            errorCode: 'COMMAND_TIMEOUT',
            note: '本条命令排队超时、没有开始执行，重发是安全的',
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
        return await withEvidence(meta, ctx, runIt);
      } finally {
        task.lock.release();
      }
    },
  };
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
 * Runs a task method and, when its row is page-changing and it succeeded, takes the one automatic
 * screenshot (§7.1). Single commands and batch steps both come through here, so both get exactly
 * one capture per successful step.
 */
async function withEvidence(
  meta: HttpMeta,
  ctx: MethodContext,
  runIt: (ctx: MethodContext) => Promise<Data>,
): Promise<Data> {
  const data = await runIt(ctx);
  if (!meta.evidence || !ctx.task?.session) return data;
  return { ...data, ...(await autoCapture(ctx.dataDir, ctx.task, pageOrNone(ctx))) };
}
