import { z } from 'zod';
import { type Data, invalidArgument } from '../envelope.js';
import { jobData, jobsOf, KEEP_JOBS } from '../jobs.js';
import { fail, type HttpMethod, type MethodContext, method, type ReplyFields } from './common.js';

/** Async jobs (reference §13.5): get_job, cancel_job, list_jobs; `commands` with async:true starts one. */

/** What `commands` with `async: true` answers: the job id at once (call from the batch method). */
export function startAsyncBatch(
  ctx: MethodContext,
  totalSteps: number,
  run: (ctx: MethodContext) => Promise<Data>,
): Data {
  if (!ctx.task || !ctx.runStep)
    throw invalidArgument('commands 失败：async:true 需要任务 id', { field: 'id' });
  const job = jobsOf(ctx).start(ctx, 'commands', totalSteps, run);
  return {
    jobId: job.jobId,
    status: job.status,
    browserId: job.browserId,
    async: true,
    totalSteps,
    hint: '已转为后台任务：用 get_job 查询进度和结果（客户端超时不会停止它），用 cancel_job 在步骤之间取消',
  };
}

const jobIdSchema = z.string().min(1);

const JOB_REPLY: ReplyFields = {
  jobId: '后台任务 id',
  kind: 'commands',
  browserId: '任务 id',
  status: 'running / done / failed / cancelled',
  createdAt: '开始时间',
  finishedAt: '结束时间',
  elapsedMs: '已用毫秒',
  steps: '已开始的步数',
  totalSteps: '总步数',
  currentStep: '正在执行的方法',
  cancelRequested: '已请求取消',
  ok: '结束后：是否成功',
  msg: '失败时的消息',
  data: 'includeResult 时：批量的结果',
  hint: '还在执行时的说明',
};

const getJob = method({
  name: 'get_job',
  summary: '后台任务（commands async:true）的状态、进度和结果',
  meta: { task: 'none', reply: JOB_REPLY },
  params: z.object({ jobId: jobIdSchema, includeResult: z.boolean().optional() }),
  async run(ctx, p) {
    const job = jobsOf(ctx).get(p.jobId);
    if (!job) throw unknownJob(ctx, p.jobId);
    return jobData(job, p.includeResult ?? true);
  },
});

const cancelJob = method({
  name: 'cancel_job',
  summary: '取消后台任务：正在执行的一步不打断，下一步开始前生效',
  effect: 'session',
  meta: {
    task: 'none',
    reply: { jobId: '后台任务 id', cancelRequested: '已请求取消', status: '当前状态', note: '说明' },
  },
  params: z.object({ jobId: jobIdSchema }),
  async run(ctx, p) {
    const job = jobsOf(ctx).cancel(p.jobId);
    if (!job) throw unknownJob(ctx, p.jobId);
    return {
      jobId: job.jobId,
      cancelRequested: job.cancelRequested,
      status: job.status,
      note:
        job.status === 'running'
          ? '已请求取消：正在执行的这一步不会被打断，下一步开始前生效；用 get_job 确认最终状态'
          : `任务已经结束（${job.status}），无需取消`,
    };
  },
});

const listJobs = method({
  name: 'list_jobs',
  summary: '最近的后台任务（最新的在前；只在内存里保留 50 个）',
  meta: {
    task: 'none',
    reply: { count: '返回的个数', jobs: '后台任务（不含结果）', kept: '最多保留的个数' },
  },
  params: z.object({ limit: z.number().int().min(1).optional() }),
  async run(ctx, p) {
    const jobs = jobsOf(ctx).list(Math.min(p.limit ?? 20, KEEP_JOBS));
    return { count: jobs.length, jobs: jobs.map((j) => jobData(j, false)), kept: KEEP_JOBS };
  },
});

function unknownJob(ctx: MethodContext, jobId: string) {
  return fail(
    ctx.method,
    'ACTION_FAILED',
    `没有这个后台任务：${jobId}（只保留最近 ${KEEP_JOBS} 个，且只在内存里）`,
    {
      jobId,
    },
  );
}

export const JOBS: HttpMethod[] = [getJob, cancelJob, listJobs];
