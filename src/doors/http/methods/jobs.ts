import { z } from 'zod';
import { type Data, invalidArgument } from '../envelope.js';
import { jobData, jobsOf, KEEP_JOBS } from '../jobs.js';
import { def, fail, type MethodContext, type MethodDef } from './common.js';

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

const getJob = def({
  name: 'get_job',
  task: 'none',
  schema: z.object({ jobId: jobIdSchema, includeResult: z.boolean().optional() }),
  async run(ctx, p) {
    const job = jobsOf(ctx).get(p.jobId);
    if (!job) throw unknownJob(ctx, p.jobId);
    return jobData(job, p.includeResult ?? true);
  },
});

const cancelJob = def({
  name: 'cancel_job',
  task: 'none',
  schema: z.object({ jobId: jobIdSchema }),
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

const listJobs = def({
  name: 'list_jobs',
  task: 'none',
  schema: z.object({ limit: z.number().int().min(1).optional() }),
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

export const JOBS: MethodDef[] = [getJob, cancelJob, listJobs];
