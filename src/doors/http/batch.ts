import { z } from 'zod';
import { CommandFailure, type Data, invalidArgument } from './envelope.js';
import { mapEngineError } from './error-map.js';
import { type HttpMethod, type MethodContext, method, type ReplyFields } from './methods/common.js';
import { runScript } from './methods/extract.js';
import { startAsyncBatch } from './methods/jobs.js';

/** The `commands` batch (reference §13): steps run one after another through the single-command path. */

export const MAX_STEPS = 200;
const MATCHERS = ['equals', 'notEquals', 'min', 'max', 'contains', 'truthy'] as const;

const expectSchema = z
  .object({
    js: z.string().min(1),
    equals: z.unknown().optional(),
    notEquals: z.unknown().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    contains: z.string().optional(),
    truthy: z.boolean().optional(),
  })
  .strict();

type Expect = z.infer<typeof expectSchema>;

function same(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'number' || typeof actual === 'number') return Number(actual) === Number(expected);
  if (typeof expected === 'boolean') return Boolean(actual) === expected;
  const str = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  return str(actual) === str(expected);
}

/** Applies the first matcher present; none = truthiness (§13.3). */
export function judge(e: Expect, actual: unknown): { passed: boolean; matcher: string; expected?: unknown } {
  const m = MATCHERS.find((k) => e[k] !== undefined);
  switch (m) {
    case 'equals':
      return { passed: same(actual, e.equals), matcher: m, expected: e.equals };
    case 'notEquals':
      return { passed: !same(actual, e.notEquals), matcher: m, expected: e.notEquals };
    case 'min':
      return { passed: Number(actual) >= e.min!, matcher: m, expected: e.min };
    case 'max':
      return { passed: Number(actual) <= e.max!, matcher: m, expected: e.max };
    case 'contains':
      return {
        passed: (typeof actual === 'string' ? actual : (JSON.stringify(actual) ?? '')).includes(e.contains!),
        matcher: m,
        expected: e.contains,
      };
    case 'truthy':
      return { passed: Boolean(actual) === e.truthy, matcher: m, expected: e.truthy };
    default:
      return { passed: Boolean(actual), matcher: 'truthy', expected: true };
  }
}

export interface Step {
  method: string;
  params: unknown;
  expect?: Expect;
}

/** Structure checks: 1..200 entries, objects, exactly one command key (+ optional expect), no nesting. */
export function parseSteps(list: unknown[]): Step[] {
  if (list.length === 0)
    throw invalidArgument('commands 失败：commands 是空数组，至少要有一条命令', { field: 'commands' });
  if (list.length > MAX_STEPS) {
    throw invalidArgument(`commands 失败：一次最多 ${MAX_STEPS} 条命令，你传了 ${list.length} 条，请分批`, {
      field: 'commands',
    });
  }
  return list.map((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw invalidArgument(`第 ${i} 条命令无效：每一项必须是对象，形如 {"go_to_url":{"url":"…"}}`, {
        field: 'commands',
        stepIndex: i,
      });
    }
    const keys = Object.keys(entry).filter((k) => k !== 'expect');
    if (keys.length !== 1) {
      throw invalidArgument(
        `第 ${i} 条命令无效：每一项只能有一个命令键（另可带 expect），现在有 ${keys.length} 个${keys.length ? `：${keys.join(', ')}` : ''}`,
        { field: 'commands', stepIndex: i },
      );
    }
    const method = keys[0]!;
    if (method === 'commands') {
      throw invalidArgument(`第 ${i} 条命令无效：commands 不能嵌套`, { field: 'commands', stepIndex: i });
    }
    const rawExpect = (entry as Data).expect;
    let expect: Expect | undefined;
    if (rawExpect !== undefined && rawExpect !== null) {
      const r = expectSchema.safeParse(rawExpect);
      if (!r.success) {
        throw invalidArgument(
          `第 ${i} 条命令 ${method} 的 expect 无效：需要 {js, equals|notEquals|min|max|contains|truthy}`,
          {
            field: 'expect',
            stepIndex: i,
          },
        );
      }
      expect = r.data;
    }
    return { method, params: (entry as Data)[method], expect };
  });
}

function stripPrefix(method: string, msg: string): string {
  const prefix = `${method} 失败：`;
  return msg.startsWith(prefix) ? msg.slice(prefix.length) : msg;
}

async function runExpect(ctx: MethodContext, e: Expect): Promise<Data> {
  try {
    const actual = await runScript({ ...ctx, method: 'execute_js' }, e.js, 10_000);
    const j = judge(e, actual);
    return { passed: j.passed, actual: actual ?? null, js: e.js, matcher: j.matcher, expected: j.expected };
  } catch (err) {
    // In this door's words, like every failure it answers (a script failure is runScript's already).
    return { passed: false, js: e.js, error: mapEngineError('execute_js', err).message };
  }
}

const batchParams = z.object({
  commands: z.array(z.unknown()),
  stopOnError: z.boolean().optional(),
  stopOnExpectFailure: z.boolean().optional(),
  maxDurationMs: z.number().int().min(1).optional(),
  async: z.boolean().optional(),
});

/** The batch's reply (§13.4); a failed batch carries the same fields in its failure's data. */
export const BATCH_REPLY: ReplyFields = {
  count: '执行了几条',
  total: '一共几条',
  succeeded: '成功的条数',
  failed: '失败的条数',
  expectFailed: 'expect 没通过的条数',
  stopped: '是否提前停止',
  stopReason: '提前停止的原因',
  results: '每一条：index, command, ok, data, msg, error, expectResult',
  note: '说明',
  jobId: 'async:true 时：后台任务 id（用 get_job 查询）',
};

/** `commands` without the async path: parse the steps and run them (also run_recipe's runner). */
export function runBatch(ctx: MethodContext, p: z.output<typeof batchParams>): Promise<Data> {
  const steps = parseSteps(p.commands);
  // Async: a background job (jobs.ts) whose steps take the task lock one by one.
  if (p.async)
    return Promise.resolve(startAsyncBatch(ctx, steps.length, (jobCtx) => runSteps(jobCtx, steps, p)));
  return runSteps(ctx, steps, p);
}

export const commands: HttpMethod = method({
  name: 'commands',
  summary:
    '批量：按顺序执行多条命令（每条 {方法名: 参数}，可带 expect 检查），默认遇错即停；async:true 转为后台任务',
  // Its steps may be any method.
  effect: 'raw',
  meta: { task: 'existing', reply: BATCH_REPLY },
  params: batchParams,
  run: (ctx, p) => runBatch(ctx, p),
});

interface BatchOptions {
  stopOnError?: boolean;
  stopOnExpectFailure?: boolean;
  maxDurationMs?: number;
}

/** Runs parsed steps; resolves with the batch data, or throws a CommandFailure carrying it (§13.4). */
export async function runSteps(ctx: MethodContext, steps: Step[], p: BatchOptions): Promise<Data> {
  {
    const stopOnError = p.stopOnError ?? true;
    const began = Date.now();
    const results: Data[] = [];
    let succeeded = 0;
    let failed = 0;
    let expectFailed = 0;
    let stopped = false;
    let stopReason: string | undefined;
    let firstFailure: string | undefined;
    for (const [i, step] of steps.entries()) {
      if (p.maxDurationMs !== undefined && Date.now() - began >= p.maxDurationMs) {
        stopped = true;
        stopReason = `maxDurationMs(${p.maxDurationMs}ms)`;
        break;
      }
      const entry: Data = { index: i, command: step.method };
      try {
        entry.data = await ctx.runStep!(step.method, step.params);
        entry.ok = true;
        succeeded++;
      } catch (err) {
        const f = mapEngineError(step.method, err);
        const { invalidArgument: _ia, ...fdata } = f.data;
        entry.ok = false;
        entry.data = fdata;
        entry.msg = f.message;
        entry.error = {
          code: f.data.errorCode ?? 'ACTION_FAILED',
          message: f.message,
          retryable: f.data.retryable === true,
          retryAfterMs: f.data.retryAfterMs,
        };
        failed++;
        firstFailure ??= `第 ${i} 条命令 ${step.method} 失败：${stripPrefix(step.method, f.message)}`;
      }
      if (entry.ok && step.expect) {
        const er = await runExpect(ctx, step.expect);
        entry.expectResult = er;
        if (!er.passed) {
          expectFailed++;
          firstFailure ??= `第 ${i} 条命令 ${step.method} 的 expect 没有通过：${er.error ?? `实际值 ${JSON.stringify(er.actual)}`}`;
        }
      }
      results.push(entry);
      if (!entry.ok && stopOnError) {
        stopped = i < steps.length - 1;
        break;
      }
      if (entry.expectResult && !(entry.expectResult as Data).passed && p.stopOnExpectFailure) {
        stopped = i < steps.length - 1;
        stopReason = stopped ? 'stopOnExpectFailure' : undefined;
        break;
      }
    }
    const data: Data = {
      count: results.length,
      total: steps.length,
      succeeded,
      failed,
      expectFailed,
      stopped,
      stopReason,
      results,
      note: failed === 0 && expectFailed > 0 ? '所有命令都执行成功，只有 expect 检查没有通过' : undefined,
    };
    if (failed > 0 || expectFailed > 0) throw new CommandFailure(firstFailure!, data);
    return data;
  }
}
