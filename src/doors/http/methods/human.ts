import { join } from 'node:path';
import { z } from 'zod';
import { ops, questionAnswers } from '../../../engine/api.js';
import type { HumanInputRecord, HumanStep } from '../../../engine/human-input.js';
import type { Data } from '../envelope.js';
import { invalidArgument } from '../envelope.js';
import { dataUrl, taskDir, writeEvidence } from '../evidence.js';
import {
  type HttpMethod,
  indexSchema,
  type MethodContext,
  method,
  pageOrNone,
  type ReplyFields,
  SCREENSHOT_TIMEOUT_MS,
  sessionOf,
  urlOf,
} from './common.js';
import { ocrForHuman } from './files.js';
import { frameParam, shotElement } from './target.js';

/**
 * Human in the loop (reference §14) over the engine's human.* operations (its HumanInputStore),
 * which the dashboard (GET /) shows and answers.
 * get/submit never take the task lock: a long-poll must not block the
 * task's other commands, nor the answer that ends it.
 */

const MAX_POLL_S = 300;

const deadlineFields = {
  timeoutSeconds: z.number().optional(),
  expiresInSeconds: z.number().optional(),
  expiresAt: z.number().optional(),
};

function deadlineOf(p: { timeoutSeconds?: number; expiresInSeconds?: number; expiresAt?: number }) {
  return {
    timeout_seconds: p.timeoutSeconds,
    expires_in_seconds: p.expiresInSeconds,
    expires_at: p.expiresAt,
  };
}

function stepData(s: HumanStep): Data {
  return {
    stepId: s.step_id,
    prompt: s.prompt,
    status: s.status,
    answer: s.answer,
    answeredAt: s.answered_at,
    selector: s.selector,
    index: s.index,
    frame: s.frame,
    header: s.header,
    options: s.options,
    multiSelect: s.multi_select,
    imageUrl: s.image?.url,
  };
}

/** The wire shape of a record (get_human_input, submit_human_input, the dashboard). */
export function humanData(rec: HumanInputRecord, now = Date.now()): Data {
  const pending = rec.steps.filter((s) => s.status === 'pending');
  const single = rec.steps.length === 1 ? rec.steps[0]!.answer : undefined;
  return {
    requestId: rec.id,
    kind: rec.kind === 'question' ? 'ask_user' : 'request_human_input',
    status: rec.status,
    prompt: rec.prompt,
    answer: single,
    steps: rec.steps.map(stepData),
    pendingSteps: rec.status === 'partial' ? pending.map((s) => s.step_id) : undefined,
    answers: rec.kind === 'question' ? questionAnswers(rec) : undefined,
    markedDone: rec.marked_done || undefined,
    expired: rec.status === 'expired' || undefined,
    hint:
      rec.status === 'expired'
        ? '请求已过期：如仍需要人工帮助，请重新发起 request_human_input / ask_user（不要重用旧的验证码）'
        : rec.status === 'answered' && rec.marked_done
          ? '用户表示已在浏览器里操作完成：请重新读取页面（get_browser_state）确认是否真的成功'
          : undefined,
    createdAt: rec.created_at,
    expiresAt: rec.expires_at,
    expiresInSeconds: Math.max(0, Math.round((rec.expires_at - now) / 1000)),
    answeredAt: rec.answered_at ?? undefined,
    url: rec.url ?? undefined,
    imageUrl: rec.image?.url,
    taskId: rec.owner.task_id,
  };
}

const stepSchema = z.object({
  prompt: z.string().min(1),
  selector: z.string().min(1).optional(),
  index: indexSchema.optional(),
  frame: frameParam,
});

/** The fields of a human input record (humanData). */
const RECORD_REPLY: ReplyFields = {
  requestId: '请求 id',
  kind: 'request_human_input 或 ask_user',
  status: 'pending / partial / answered / expired',
  prompt: '提示',
  answer: '只有一步时的回答',
  steps:
    '步骤：stepId, prompt, status, answer, answeredAt, selector, index, frame, header, options, multiSelect, imageUrl',
  pendingSteps: 'partial 时还没回答的步骤',
  answers: 'ask_user：每个问题的回答（id, selected, custom）',
  markedDone: '用户表示已在浏览器里完成',
  expired: '已过期',
  hint: '下一步建议',
  createdAt: '创建时间（毫秒时间戳）',
  expiresAt: '过期时间（毫秒时间戳）',
  expiresInSeconds: '还有多少秒过期',
  answeredAt: '回答时间',
  url: '发起请求时的页面 URL',
  imageUrl: '元素图片的 GET 地址',
  taskId: '任务 id',
};

const requestHumanInput = method({
  name: 'request_human_input',
  summary: '请人来操作或回答（提示、步骤、元素截图），显示在控制台（GET /）上；用 get_human_input 等待回答',
  ops: [ops.requestHuman, ops.screenshot, ops.bringToFront],
  meta: {
    task: 'existing',
    reply: {
      requestId: '请求 id（get_human_input / submit_human_input 用）',
      prompt: '提示',
      status: 'pending',
      expiresAt: '过期时间（毫秒时间戳）',
      expiresInSeconds: '还有多少秒过期',
      url: '页面 URL',
      imagePath: '元素截图在服务器上的路径',
      imageUrl: '元素截图的 GET 地址',
      imageTarget: '截图的元素',
      imageSize: '截图字节数',
      imageError: '没能截图的原因（请求照样记录）',
      base64Omitted: '默认不内联图片',
      imageBase64: 'inline:true 时的图片',
      imageNote: '说明',
      ocr: 'ocr:true 时的识别结果',
      steps: '步骤',
      dashboard: '控制台地址',
      note: '说明',
    },
  },
  params: z.object({
    prompt: z.string().optional(),
    index: indexSchema.optional(),
    selector: z.string().min(1).optional(),
    frame: frameParam,
    steps: z.array(stepSchema).max(50).optional(),
    ocr: z.boolean().optional(),
    ocrLanguage: z.string().optional(),
    inline: z.boolean().optional(),
    ...deadlineFields,
  }),
  async run(ctx, p) {
    if ((p.prompt ?? '').trim() === '' && (p.steps ?? []).length === 0) {
      throw invalidArgument('request_human_input 失败：缺少参数 prompt（或传 steps）', { field: 'prompt' });
    }
    const session = sessionOf(ctx);
    const page = session.page();
    const url = await urlOf(page);
    const image = await captureElement(ctx, p);
    // Steps that point at an element get its image too (best effort, like the request's own).
    const steps = [];
    for (const st of p.steps ?? []) {
      const shot = await captureElement(ctx, st);
      steps.push({
        ...st,
        image: shot ? { path: shot.path, url: shot.url, target: shot.target, size: shot.size } : null,
      });
    }
    const rec = await ops.requestHuman.call(ctx.engine, {
      kind: 'action',
      id_prefix: `hr-${ctx.id}`,
      prompt: p.prompt,
      steps,
      ...deadlineOf(p),
      owner: { door: 'http', task_id: ctx.id, session_id: session.id, page_id: page.id },
      url,
      image: image ? { path: image.path, url: image.url, target: image.target, size: image.size } : null,
    });
    // The reference brings the tab to front so a person at a headed browser sees it.
    await ops.bringToFront.call(page, {}, { timeoutMs: 5_000 }).catch(() => {});
    const now = Date.now();
    return {
      requestId: rec.id,
      prompt: rec.prompt,
      status: rec.status,
      expiresAt: rec.expires_at,
      expiresInSeconds: Math.round((rec.expires_at - now) / 1000),
      url: rec.url ?? undefined,
      imagePath: image?.path,
      imageUrl: image ? (image.url ?? '') : p.index !== undefined || p.selector ? '' : undefined,
      imageTarget: image?.target,
      imageSize: image?.size,
      imageError:
        image === undefined && (p.index !== undefined || p.selector) ? captureError.get(ctx) : undefined,
      base64Omitted: image ? !p.inline : undefined,
      imageBase64: image && p.inline ? image.data.toString('base64') : undefined,
      imageNote: image
        ? '图片可以直接展示给用户（GET imageUrl）；默认不内联 base64，需要时传 inline:true'
        : undefined,
      ocr: p.ocr
        ? image
          ? await ocrForHuman(ctx, image.path, p.ocrLanguage)
          : { ok: false, note: '没有截取到元素图片（传 index / selector），无法识别' }
        : undefined,
      steps: rec.steps.map(stepData),
      dashboard: '/',
      note: '请求已记录并显示在控制台（GET /）上；仍需由宿主应用把提示告诉用户',
    };
  },
});

const captureError = new WeakMap<MethodContext, string>();
let imageSeq = 0;

async function captureElement(
  ctx: MethodContext,
  p: { index?: number; selector?: string; frame?: string | number },
): Promise<{ path: string; url?: string; target: string; size: number; data: Buffer } | undefined> {
  if (p.index === undefined && !p.selector) return undefined;
  try {
    const element = await shotElement(ctx, p);
    const shot = await ops.screenshot.call(
      sessionOf(ctx).page(),
      { element, format: 'png' },
      { timeoutMs: SCREENSHOT_TIMEOUT_MS },
    );
    const file = join(taskDir(ctx.dataDir, ctx.task!.id), `human-${Date.now()}-${++imageSeq}.png`);
    await writeEvidence(file, shot.data);
    return {
      path: file,
      url: dataUrl(ctx.dataDir, file),
      target: p.index !== undefined ? `index=${p.index}` : `selector=${p.selector}`,
      size: shot.data.length,
      data: shot.data,
    };
  } catch (err) {
    // No image is not a failure of the request (a captcha inside an iframe without `frame`, §14.1).
    captureError.set(ctx, err instanceof Error ? err.message : String(err));
    return undefined;
  }
}

const optionSchema = z.union([
  z.string().min(1),
  z.object({ label: z.string().min(1), description: z.string().optional() }),
]);

const askUser = method({
  name: 'ask_user',
  summary: '向用户提问（可带选项、多选），显示在控制台上；不占任务锁',
  ops: [ops.requestHuman],
  meta: {
    task: 'existing-unlocked',
    reply: {
      requestId: '请求 id',
      status: 'pending',
      questions: '问题：id, question, header, options, multiSelect',
      questionIds: '问题 id',
      expiresAt: '过期时间（毫秒时间戳）',
      expiresInSeconds: '还有多少秒过期',
    },
  },
  params: z.object({
    questions: z
      .array(
        z.object({
          id: z.union([z.string().min(1), z.number()]).optional(),
          question: z.string().min(1),
          header: z.string().optional(),
          options: z.array(optionSchema).max(50).optional(),
          multiSelect: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(50),
    ...deadlineFields,
  }),
  async run(ctx, p) {
    const session = ctx.task?.session;
    const rec = await ops.requestHuman.call(ctx.engine, {
      kind: 'question',
      id_prefix: `aq-${ctx.id}`,
      steps: p.questions.map((q, i) => ({
        id: q.id === undefined ? `q${i + 1}` : String(q.id),
        prompt: q.question,
        header: q.header,
        options: q.options,
        multi_select: q.multiSelect,
      })),
      ...deadlineOf(p),
      owner: { door: 'http', task_id: ctx.id, session_id: session?.id },
      url: await safeUrl(ctx),
    });
    return {
      requestId: rec.id,
      status: rec.status,
      questions: rec.steps.map((s) => ({
        id: s.step_id,
        question: s.prompt,
        header: s.header,
        options: s.options,
        multiSelect: s.multi_select ?? false,
      })),
      questionIds: rec.steps.map((s) => s.step_id),
      expiresAt: rec.expires_at,
      expiresInSeconds: Math.round((rec.expires_at - Date.now()) / 1000),
    };
  },
});

async function safeUrl(ctx: MethodContext): Promise<string | null> {
  const page = pageOrNone(ctx);
  return page ? urlOf(page).catch(() => null) : null;
}

const answerValue = z.union([z.string(), z.array(z.string())]);

const submitHumanInput = method({
  name: 'submit_human_input',
  summary: '提交人的回答：answer、stepId + answer、answers，或 done:true（已在浏览器里完成）',
  ops: [ops.answerHuman],
  meta: { task: 'existing-unlocked', reply: { ...RECORD_REPLY, submitted: 'true' } },
  params: z.object({
    requestId: z.string().min(1),
    answer: answerValue.optional(),
    stepId: z.union([z.string().min(1), z.number()]).optional(),
    answers: z.record(z.string(), answerValue).optional(),
    done: z.boolean().optional(),
  }),
  async run(ctx, p) {
    if (p.answer === undefined && p.answers === undefined && !p.done) {
      throw invalidArgument('submit_human_input 失败：缺少参数 answer（或 stepId + answer，或 answers）', {
        field: 'answer',
      });
    }
    const rec = await ops.answerHuman.call(ctx.engine, {
      id: p.requestId,
      submission: {
        answer: p.answer,
        step_id: p.stepId === undefined ? undefined : String(p.stepId),
        answers: p.answers,
        done: p.done,
      },
    });
    return { ...humanData(rec), submitted: true };
  },
});

const getHumanInput = method({
  name: 'get_human_input',
  summary: '读取人的回答；timeoutSeconds > 0 时长轮询到有变化（最多 300 秒）；不占任务锁',
  ops: [ops.waitForHuman],
  meta: { task: 'existing-unlocked', reply: { ...RECORD_REPLY, waitedMs: '等待了多少毫秒' } },
  params: z.object({
    requestId: z.string().min(1),
    timeoutSeconds: z.number().min(0).optional(),
  }),
  async run(ctx, p) {
    const ms = Math.round(Math.min(p.timeoutSeconds ?? 0, MAX_POLL_S) * 1000);
    const began = Date.now();
    const rec = await ops.waitForHuman.call(ctx.engine, { id: p.requestId, timeout_ms: ms });
    return { ...humanData(rec), waitedMs: Date.now() - began };
  },
});

export const HUMAN: HttpMethod[] = [requestHumanInput, askUser, submitHumanInput, getHumanInput];
