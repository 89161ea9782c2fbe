import { extname } from 'node:path';
import { z } from 'zod';
import { ops, TabwrightError } from '../../../engine/api.js';
import { invalidArgument } from '../envelope.js';
import { dataUrl, outputPath, taskDir, writeEvidence } from '../evidence.js';
import { indexTarget } from './act.js';
import {
  ENGINE_MAX_TIMEOUT_MS,
  type HttpMethod,
  indexSchema,
  method,
  SCREENSHOT_TIMEOUT_MS,
  sessionOf,
} from './common.js';
import { FILE_REPLY } from './replies.js';
import { frameParam, shotElement } from './target.js';

const SHOT_REPLY = {
  ...FILE_REPLY,
  width: '图片宽度（像素）',
  height: '图片高度（像素）',
  base64Omitted: '默认不内联图片',
  base64: 'inline:true 时的图片',
};

const screenshot = method({
  name: 'screenshot',
  summary:
    '截图：视口、整页（fullPage）、区域（clipX/clipY/clipWidth/clipHeight）或一个元素，存到任务的数据目录',
  ops: [ops.screenshot],
  meta: {
    task: 'existing',
    reply: { ...SHOT_REPLY, warning: '整页截图失败、按 fallbackToViewport 改截视口时的说明' },
  },
  params: z.object({
    path: z.string().min(1).optional(),
    fullPage: z.boolean().optional(),
    inline: z.boolean().optional(),
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
    force: z.boolean().optional(),
    fallbackToViewport: z.boolean().optional(),
    clipX: z.number().optional(),
    clipY: z.number().optional(),
    clipWidth: z.number().positive().optional(),
    clipHeight: z.number().positive().optional(),
    index: indexSchema.optional(),
    selector: z.string().min(1).optional(),
  }),
  async run(ctx, p) {
    const clipKeys = ['clipX', 'clipY', 'clipWidth', 'clipHeight'] as const;
    const clipGiven = clipKeys.filter((k) => p[k] !== undefined);
    if (clipGiven.length > 0 && clipGiven.length < 4) {
      const missing = clipKeys.find((k) => p[k] === undefined)!;
      throw invalidArgument(
        `screenshot 失败：缺少参数 ${missing}（clipX / clipY / clipWidth / clipHeight 四个要一起传）`,
        {
          field: missing,
        },
      );
    }
    const task = ctx.task!;
    const dir = taskDir(ctx.dataDir, task.id);
    const file = outputPath('screenshot', dir, p.path, () => `shot-${++task.shotCounter}.png`);
    const ext = extname(file).toLowerCase();
    const format = ext === '.jpg' || ext === '.jpeg' ? 'jpeg' : 'png';
    const element =
      p.index !== undefined
        ? { ref: indexTarget(ctx, p.index).ref }
        : p.selector
          ? { selector: p.selector }
          : undefined;
    const clip =
      clipGiven.length === 4
        ? { x: p.clipX!, y: p.clipY!, width: p.clipWidth!, height: p.clipHeight! }
        : undefined;
    const timeoutMs = Math.min(p.timeoutMs ?? SCREENSHOT_TIMEOUT_MS, ENGINE_MAX_TIMEOUT_MS);
    const page = sessionOf(ctx).page();
    let warning: string | undefined;
    let shot: Awaited<ReturnType<typeof ops.screenshot.call>>;
    try {
      shot = await ops.screenshot.call(
        page,
        { full_page: element ? false : (p.fullPage ?? false), format, clip, element },
        { timeoutMs },
      );
    } catch (err) {
      if (
        !(
          p.fullPage &&
          p.fallbackToViewport &&
          err instanceof TabwrightError &&
          err.code !== 'browser_not_running'
        )
      ) {
        throw err;
      }
      shot = await ops.screenshot.call(page, { full_page: false, format, clip }, { timeoutMs });
      warning = `整页截图失败，已按 fallbackToViewport 改截当前视口：${err.message}`;
    }
    await writeEvidence(file, shot.data);
    const inline = p.inline ?? false;
    return {
      path: file,
      url: dataUrl(ctx.dataDir, file),
      size: shot.data.length,
      width: shot.width,
      height: shot.height,
      base64Omitted: !inline,
      base64: inline ? shot.data.toString('base64') : undefined,
      warning,
    };
  },
});

const getElementScreenshot = method({
  name: 'get_element_screenshot',
  summary: '给一个元素截图（index 或 selector，可带 frame）：验证码、二维码、图表',
  ops: [ops.screenshot, ops.locate],
  meta: { task: 'existing', reply: { ...SHOT_REPLY, target: '截图的元素：index=N 或 selector=…' } },
  params: z.object({
    index: indexSchema.optional(),
    selector: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    inline: z.boolean().optional(),
    frame: frameParam,
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
    force: z.boolean().optional(),
  }),
  async run(ctx, p) {
    if (p.index === undefined && p.selector === undefined) {
      throw invalidArgument('get_element_screenshot 失败：缺少参数 index', { field: 'index' });
    }
    const task = ctx.task!;
    const element = await shotElement(ctx, p);
    const file = outputPath(
      'get_element_screenshot',
      taskDir(ctx.dataDir, task.id),
      p.path,
      () => `shot-${++task.shotCounter}.png`,
    );
    const ext = extname(file).toLowerCase();
    const format = ext === '.jpg' || ext === '.jpeg' ? 'jpeg' : 'png';
    const shot = await ops.screenshot.call(
      sessionOf(ctx).page(),
      { element, format },
      { timeoutMs: Math.min(p.timeoutMs ?? SCREENSHOT_TIMEOUT_MS, ENGINE_MAX_TIMEOUT_MS) },
    );
    await writeEvidence(file, shot.data);
    const inline = p.inline ?? false;
    return {
      path: file,
      url: dataUrl(ctx.dataDir, file),
      size: shot.data.length,
      width: shot.width,
      height: shot.height,
      target: p.index !== undefined ? `index=${p.index}` : `selector=${p.selector}`,
      base64Omitted: !inline,
      base64: inline ? shot.data.toString('base64') : undefined,
    };
  },
});

export const SCREENSHOTS: HttpMethod[] = [screenshot, getElementScreenshot];
