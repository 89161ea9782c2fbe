import { log } from '../../engine/api.js';
import { CommandFailure, type Data } from './envelope.js';
import { mapEngineError } from './error-map.js';
import type { MethodContext } from './methods/common.js';
import type { TaskTable } from './tasks.js';

/**
 * Async jobs (reference §13.5): a batch that runs in the background and
 * answers at once with a jobId. Each step takes the task's lock for itself,
 * so other commands of the task interleave between steps; cancellation is
 * cooperative, checked before each step. The last 50 jobs are kept, in memory.
 */

export type JobStatus = 'running' | 'done' | 'failed' | 'cancelled';

export interface Job {
  jobId: string;
  kind: string;
  browserId: string;
  status: JobStatus;
  createdAt: number;
  finishedAt?: number;
  /** Steps started so far (the running one included). */
  stepsStarted: number;
  totalSteps?: number;
  currentStep?: string;
  cancelRequested: boolean;
  data?: Data;
  msg?: string;
}

export const KEEP_JOBS = 50;
/** How long one step waits for the task's lock before the job fails (a wedged task). */
const STEP_LOCK_WAIT_MS = 120_000;

/** A step refused because the job was cancelled (recognized by its data flag in the batch results). */
function cancelled(method: string): CommandFailure {
  return new CommandFailure(`${method} 失败：后台任务已取消，这一步没有执行`, {
    errorCode: 'ACTION_FAILED',
    retryable: false,
    jobCancelled: true,
  });
}

export class JobStore {
  private seq = 0;
  private readonly jobs = new Map<string, Job>();

  get(jobId: string): Job | undefined {
    return this.jobs.get(jobId);
  }

  /** Newest first. */
  list(limit: number): Job[] {
    return [...this.jobs.values()].reverse().slice(0, Math.max(0, limit));
  }

  /**
   * Starts `run` in the background with a context whose steps (ctx.runStep)
   * each take the task lock and stop at a cancel request.
   */
  start(
    ctx: MethodContext,
    kind: string,
    totalSteps: number | undefined,
    run: (ctx: MethodContext) => Promise<Data>,
  ): Job {
    const task = ctx.task!;
    const inner = ctx.runStep!;
    const job: Job = {
      jobId: `job-${Date.now().toString(36)}-${++this.seq}`,
      kind,
      browserId: task.id,
      status: 'running',
      createdAt: Date.now(),
      stepsStarted: 0,
      totalSteps,
      cancelRequested: false,
    };
    this.jobs.set(job.jobId, job);
    this.prune();
    const jobCtx: MethodContext = {
      ...ctx,
      runStep: async (method, params) => {
        if (job.cancelRequested) throw cancelled(method);
        if (!(await task.lock.acquire(STEP_LOCK_WAIT_MS))) {
          throw new CommandFailure(`${method} 失败：[ACTION_TIMEOUT] 等待任务上一条命令结束超时`, {
            errorCode: 'ACTION_TIMEOUT',
            retryable: true,
          });
        }
        try {
          if (job.cancelRequested) throw cancelled(method);
          if (ctx.tasks.get(task.id) !== task || !task.session) {
            throw new CommandFailure(`${method} 失败：任务 ${task.id} 已关闭`, {
              errorCode: 'ACTION_FAILED',
            });
          }
          job.stepsStarted++;
          job.currentStep = method;
          return await inner(method, params);
        } finally {
          task.lock.release();
        }
      },
    };
    // Runs after the current command released the task's lock.
    setImmediate(() => {
      void run(jobCtx).then(
        (data) => this.finish(job, 'done', data),
        (err) => {
          const f = err instanceof CommandFailure ? err : mapEngineError(kind, err);
          this.finish(job, 'failed', f.data, f.message);
        },
      );
    });
    return job;
  }

  cancel(jobId: string): Job | undefined {
    const job = this.jobs.get(jobId);
    if (job && job.status === 'running') job.cancelRequested = true;
    return job;
  }

  private finish(job: Job, status: JobStatus, data: Data, msg?: string): void {
    job.finishedAt = Date.now();
    job.currentStep = undefined;
    if (job.cancelRequested && Array.isArray(data.results)) {
      // Steps refused because of the cancel request are not results: drop them and say why the batch stopped.
      const results = (data.results as Data[]).filter((r) => !isCancelled(r));
      const dropped = (data.results as Data[]).length - results.length;
      if (dropped > 0) {
        const failed = Math.max(0, Number(data.failed ?? 0) - dropped);
        data = { ...data, results, count: results.length, failed, stopped: true, stopReason: 'cancelled' };
        job.status = 'cancelled';
        job.data = data;
        job.msg = failed > 0 ? msg : undefined;
        log.info({ jobId: job.jobId, steps: results.length }, 'http job cancelled');
        return;
      }
    }
    job.status = status;
    job.data = data;
    job.msg = msg;
    log.info({ jobId: job.jobId, status }, 'http job finished');
  }

  private prune(): void {
    while (this.jobs.size > KEEP_JOBS) {
      const oldest = this.jobs.keys().next().value as string;
      this.jobs.delete(oldest);
    }
  }
}

function isCancelled(r: Data): boolean {
  return r.ok === false && (r.data as Data | undefined)?.jobCancelled === true;
}

const stores = new WeakMap<TaskTable, JobStore>();

/** The job store of one server (one TaskTable per server). */
export function jobsOf(ctx: { tasks: TaskTable }): JobStore {
  let s = stores.get(ctx.tasks);
  if (!s) {
    s = new JobStore();
    stores.set(ctx.tasks, s);
  }
  return s;
}

/** The wire shape of a job (get_job, list_jobs). */
export function jobData(job: Job, includeResult: boolean): Data {
  return {
    jobId: job.jobId,
    kind: job.kind,
    browserId: job.browserId,
    status: job.status,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
    elapsedMs: (job.finishedAt ?? Date.now()) - job.createdAt,
    steps: job.stepsStarted,
    totalSteps: job.totalSteps,
    currentStep: job.currentStep,
    cancelRequested: job.cancelRequested || undefined,
    ok: job.status === 'running' ? undefined : job.status === 'done',
    msg: job.msg,
    data: includeResult ? job.data : undefined,
    hint:
      job.status === 'running'
        ? '任务还在后台执行：稍后再用 get_job 查询；客户端超时不会停止它，要停止请用 cancel_job'
        : undefined,
  };
}
