import { createHash } from 'node:crypto';
import { link, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import type { Target } from '../../../engine/actions/types.js';
import { type OcrConfig, ops, TabwrightError } from '../../../engine/api.js';
import { CommandFailure, type Data, invalidArgument } from '../envelope.js';
import { mapEngineError } from '../error-map.js';
import { dataUrl, taskDir, writeEvidence } from '../evidence.js';
import { resolveFilesConfig } from '../files-config.js';
import { receiptWarnings } from '../render/receipt-notes.js';
import { resolveDataFile } from '../static-files.js';
import { decodeBase64, resolveSourcePath, sanitizeFilename, stageFile } from '../upload-staging.js';
import { indexTarget, OBSERVE_MS } from './act.js';
import {
  ACTION_TIMEOUT_MS,
  budget,
  ENGINE_MAX_TIMEOUT_MS,
  type HttpMethod,
  indexSchema,
  type MethodContext,
  method,
  pageOf,
  SCREENSHOT_TIMEOUT_MS,
} from './common.js';
import { FILE_REPLY } from './replies.js';
import { frameParam, nthParam, selectorTarget } from './target.js';

/**
 * Files (reference §8.3 upload_file + §10.4, §8.14 download_image, §14.6 ocr_image). The browser work is
 * the engine's (page.upload, page.image, page.fetch, engine.ocr); staging is `../upload-staging.ts`.
 */

function filesOf(ctx: MethodContext) {
  return ctx.files ?? resolveFilesConfig(ctx.engine.home);
}

/** Text in an image file through the engine's OCR operation. */
function ocr(ctx: MethodContext, file: string, language: string, config: OcrConfig) {
  return ops.ocr.call(ctx.engine, {
    file,
    language,
    config: { engine: config.engine, command: config.command, timeoutMs: config.timeoutMs },
  });
}

const targetParams = {
  index: indexSchema.optional(),
  selector: z.string().min(1).optional(),
  nth: nthParam,
  frame: frameParam,
};

/** index → the element its ref pins; selector (+ frame, nth) → an engine selector target. */
async function targetOf(
  ctx: MethodContext,
  p: { index?: number; selector?: string; nth?: number; frame?: string | number },
): Promise<{ target: Target; label: string }> {
  if (p.index !== undefined && p.selector !== undefined)
    throw invalidArgument(`${ctx.method} 失败：index 和 selector 只能传一个`, { field: 'selector' });
  if (p.index !== undefined)
    return { target: { element_ref: indexTarget(ctx, p.index).ref }, label: `index=${p.index}` };
  if (p.selector === undefined)
    throw invalidArgument(`${ctx.method} 失败：缺少参数 index`, { field: 'index' });
  return {
    target: await selectorTarget(ctx, { selector: p.selector, frame: p.frame, nth: p.nth }),
    label: `selector=${p.selector}`,
  };
}

const EXT_BY_TYPE: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/bmp': '.bmp',
  'image/svg+xml': '.svg',
  'image/x-icon': '.ico',
  'image/vnd.microsoft.icon': '.ico',
  'image/avif': '.avif',
  'application/pdf': '.pdf',
  'text/plain': '.txt',
  'text/csv': '.csv',
  'application/json': '.json',
  'application/zip': '.zip',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': '.xlsx',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
};

/** The name, with an extension from the content type when it has none (the page sees the type by extension). */
function withExtension(name: string, contentType: string | undefined): string {
  if (extname(name) || !contentType) return name;
  return name + (EXT_BY_TYPE[contentType.split(';')[0]!.trim().toLowerCase()] ?? '');
}

// ---------------------------------------------------------------------------------------------------
// upload_file

const uploadFile = method({
  name: 'upload_file',
  summary:
    '把文件放到文件输入框上（服务器路径 path / paths，或 contentBase64 + filename，或 url），回执说明页面是否处理了文件',
  ops: [ops.upload, ops.fetchResource],
  meta: {
    task: 'existing',
    evidence: true,
    reply: {
      filesLength: '输入框上现在的文件数',
      files: '输入框读回的文件名',
      expectedFiles: '放上去的文件数',
      listeners: '输入框的 change/input 监听器',
      hasListeners: '有没有监听器（null：不知道）',
      listenerDetection: '监听器是怎么读到的',
      consumed: 'listener / noListener / unknown：页面是否会处理文件',
      hint: '没有看到页面处理文件时下一步该怎么做',
      changed: '观察窗口内页面有没有变化',
      changeStatus: '变化判断',
      effective: 'true：页面有反应；false：没有监听器也没有变化；null：无法判断',
      elementGone: '输入框已不在页面上',
      readbackNote: '读回文件列表时的说明',
      matched: '选择器匹配到的元素数',
      chosenIndex: '使用的是第几个匹配',
      visibleMatched: '可见的匹配数',
      selectorNote: '多个匹配时用的是哪一个',
      explicitNth: '是否由 nth 指定',
      target: '目标：index=N 或 selector=…',
      input: '文件输入框（selector, multiple, accept）',
      paths: '放到输入框上的服务器文件路径',
      source: '文件来源：path / paths / contentBase64 / url',
      stagedPath: '暂存文件的路径（contentBase64、url）',
      size: '暂存文件的字节数',
      sha256: '暂存文件的 SHA-256',
      downloadedFrom: 'url 来源：下载地址',
      finalUrl: 'url 来源：跳转后的地址',
      downloadedContentType: 'url 来源：响应的类型',
      actionStatus: 'completed / unknown',
      dialog: '触发的原生对话框',
      warnings: '引擎的提醒',
    },
  },
  params: z.object({
    path: z.string().min(1).optional(),
    paths: z.array(z.string().min(1)).min(1).max(20).optional(),
    contentBase64: z.string().optional(),
    filename: z.string().min(1).optional(),
    contentType: z.string().min(1).optional(),
    url: z.string().min(1).optional(),
    ...targetParams,
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
  }),
  async run(ctx, p) {
    const cfg = filesOf(ctx).upload;
    const sources = ['path', 'paths', 'contentBase64', 'url'].filter((k) => (p as Data)[k] !== undefined);
    if (sources.length !== 1) {
      throw invalidArgument(
        sources.length === 0
          ? 'upload_file 失败：缺少参数 path（服务器上的文件；或 contentBase64 + filename；或 url）'
          : `upload_file 失败：文件来源只能有一个，收到 ${sources.join(', ')}`,
        { field: 'path' },
      );
    }
    const { target, label } = await targetOf(ctx, p);
    const page = pageOf(ctx);
    const source: Data = { source: sources[0] };
    let files: string[];
    if (p.path !== undefined || p.paths !== undefined) {
      files = [];
      for (const raw of p.paths ?? [p.path!])
        files.push((await resolveSourcePath(cfg, 'upload_file', raw)).path);
    } else if (p.contentBase64 !== undefined) {
      if (p.filename === undefined)
        throw invalidArgument('upload_file 失败：contentBase64 需要 filename（页面看到的文件名）', {
          field: 'filename',
        });
      const data = decodeBase64('contentBase64', p.contentBase64, cfg.maxBytes);
      const staged = await stageFile(cfg, withExtension(sanitizeFilename(p.filename), p.contentType), data);
      files = [staged.path];
      Object.assign(source, { stagedPath: staged.path, size: staged.size, sha256: staged.sha256 });
    } else {
      const got = await ops.fetchResource
        .call(page, { url: p.url!, max_bytes: cfg.maxBytes }, { timeoutMs: 30_000 })
        .catch((err) => {
          throw mapEngineError('upload_file', err);
        });
      const name = withExtension(
        sanitizeFilenameOr(p.filename ?? got.suggestedName, 'download'),
        p.contentType ?? got.contentType,
      );
      const staged = await stageFile(cfg, name, got.data);
      files = [staged.path];
      Object.assign(source, {
        downloadedFrom: p.url,
        finalUrl: got.finalUrl,
        downloadedContentType: got.contentType,
        stagedPath: staged.path,
        size: staged.size,
        sha256: staged.sha256,
      });
    }
    const timeoutMs = budget(p.timeoutMs, ACTION_TIMEOUT_MS * 2);
    let r: Awaited<ReturnType<typeof ops.upload.call>>;
    try {
      r = await ops.upload.call(
        page,
        { target, files, observe_ms: OBSERVE_MS, observe_min_ms: 300 },
        { timeoutMs },
      );
    } catch (err) {
      const mapped = mapEngineError('upload_file', err);
      if (err instanceof TabwrightError && typeof err.details.match_count === 'number')
        mapped.data.matched = err.details.match_count;
      mapped.data.target = label;
      throw mapped;
    }
    const rc = r.receipt;
    // The page's reaction, not the input's own value (which changes whenever files are set).
    const changed = r.pageChanged;
    const effective = changed ? true : r.consumed === 'noListener' ? false : null;
    const hint =
      r.consumed === 'noListener' && !changed
        ? '页面没有监听这个文件输入框的 change/input 事件，页面也没有变化：文件放到了输入框上，但很可能没有被处理。检查是否选错了输入框（多个匹配时用 nth），或页面要求先点击某个按钮再选择文件'
        : r.consumed === 'unknown' && !changed
          ? '无法确认页面是否处理了文件（没能读取事件监听器，页面也没有变化）：用 get_browser_state 或截图核对页面上是否出现了文件名或预览'
          : !changed
            ? '页面监听了文件输入框，但观察窗口内没有可见变化：有些上传组件只在提交时处理文件，请核对页面'
            : undefined;
    const selectorNote =
      r.matched !== undefined && r.matched > 1
        ? p.nth !== undefined
          ? `选择器匹配到 ${r.matched} 个元素，按 nth=${p.nth} 使用第 ${p.nth + 1} 个`
          : `选择器匹配到 ${r.matched} 个元素，按文档顺序使用第一个（文件输入框通常是隐藏的，不按可见性挑选）；要用别的请传 nth`
        : undefined;
    return {
      filesLength: r.filesLength,
      files: r.fileNames,
      expectedFiles: files.length,
      listeners: r.listeners,
      hasListeners: r.hasListeners,
      listenerDetection: r.listenerDetection,
      consumed: r.consumed,
      hint,
      changed,
      changeStatus: r.pageChangeStatus,
      effective,
      elementGone: r.elementGone,
      readbackNote:
        r.readbackNote ??
        (r.filesLength === 0 && !r.elementGone
          ? '输入框上现在没有文件：很多前端组件取走文件后会清空输入框，这本身不是失败'
          : undefined),
      matched: r.matched ?? 1,
      chosenIndex: r.chosenIndex ?? 0,
      visibleMatched: r.visibleMatched,
      selectorNote,
      explicitNth: p.nth !== undefined,
      target: label,
      input: r.input,
      paths: files,
      ...source,
      actionStatus: rc.status === 'executed' ? 'completed' : 'unknown',
      dialog: rc.dialog ?? undefined,
      warnings: receiptWarnings(rc),
    };
  },
});

function sanitizeFilenameOr(name: string | undefined, fallback: string): string {
  if (!name) return fallback;
  try {
    return sanitizeFilename(name);
  } catch {
    return fallback;
  }
}

// ---------------------------------------------------------------------------------------------------
// download_image

const IMAGE_FILE = /^image-(\d+)\.[A-Za-z0-9]+$/;

/** Next `image-N` number of the task (continues after files already there, so a restarted id never overwrites). */
async function nextImageNumber(ctx: MethodContext): Promise<number> {
  const extra = ctx.task!.extra;
  if (typeof extra.imageCounter !== 'number') {
    let max = 0;
    for (const n of await readdir(taskDir(ctx.dataDir, ctx.task!.id)).catch(() => [] as string[])) {
      const m = IMAGE_FILE.exec(n);
      if (m) max = Math.max(max, Number(m[1]));
    }
    extra.imageCounter = max;
  }
  extra.imageCounter = (extra.imageCounter as number) + 1;
  return extra.imageCounter as number;
}

/** Writes `data` under `name` in dir without replacing anything: `name`, `name-1`, `name-2`, … */
async function writeNew(dir: string, name: string, data: Buffer): Promise<string> {
  await mkdir(dir, { recursive: true });
  const ext = extname(name);
  const stem = ext ? name.slice(0, -ext.length) : name;
  const tmp = join(dir, `.${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.part`);
  await writeFile(tmp, data);
  try {
    for (let n = 0; n < 10_000; n++) {
      const file = join(dir, n === 0 ? name : `${stem}-${n}${ext}`);
      try {
        await link(tmp, file);
        return file;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    throw new Error('no free file name');
  } finally {
    await rm(tmp, { force: true });
  }
}

const downloadImage = method({
  name: 'download_image',
  summary: '下载图片元素的原始文件（先走浏览器上下文带 cookie，再在页面里取），存到任务的数据目录',
  ops: [ops.image],
  meta: {
    task: 'existing',
    reply: {
      ...FILE_REPLY,
      filename: '保存的文件名',
      sha256: '文件的 SHA-256',
      contentType: '图片类型',
      srcUrl: '图片的地址',
      finalUrl: '跳转后的地址',
      via: '取图的方式：context / page',
      naturalWidth: '原始宽度',
      naturalHeight: '原始高度',
      source: '地址来自哪个属性',
      attempts: '失败的尝试',
      target: '目标：index=N 或 selector=…',
      lazySrc: '懒加载图片的真实地址（data-src 等）',
      hint: '下一步建议（懒加载、OCR）',
    },
  },
  params: z.object({
    ...targetParams,
    filename: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
  }),
  async run(ctx, p) {
    const { target, label } = await targetOf(ctx, p);
    const custom = p.filename !== undefined ? sanitizeFilename(p.filename) : undefined;
    const img = await ops.image.call(
      pageOf(ctx),
      { target },
      { timeoutMs: Math.min(p.timeoutMs ?? 30_000, ENGINE_MAX_TIMEOUT_MS) },
    );
    const ext = EXT_BY_TYPE[img.contentType] ?? (img.contentType === 'image/svg+xml' ? '.svg' : '.bin');
    const dir = taskDir(ctx.dataDir, ctx.task!.id);
    const file = custom
      ? await writeNew(dir, extname(custom) ? custom : custom + ext, img.data)
      : await writeNew(dir, `image-${await nextImageNumber(ctx)}${ext}`, img.data);
    return {
      path: file,
      url: dataUrl(ctx.dataDir, file),
      filename: basename(file),
      size: img.data.length,
      sha256: createHash('sha256').update(img.data).digest('hex'),
      contentType: img.contentType,
      srcUrl: img.srcUrl,
      finalUrl: img.finalUrl,
      via: img.via,
      naturalWidth: img.naturalWidth,
      naturalHeight: img.naturalHeight,
      source: img.source,
      attempts: img.attempts.length ? img.attempts : undefined,
      target: label,
      lazySrc: img.lazySrc,
      hint: img.lazySrc
        ? `这张图显示的可能是懒加载占位图，真实地址在 data-src 等属性里（lazySrc）：先把它滚动到可见位置（scroll_to_text / scroll），再 download_image 一次`
        : '图片里的文字可用 ocr_image 识别：{"method":"ocr_image","params":{"path":"<path>"}}',
    };
  },
});

// ---------------------------------------------------------------------------------------------------
// ocr_image

const OCR_IMAGE_TYPES = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.bmp',
  '.tif',
  '.tiff',
  '.pnm',
  '.pbm',
  '.pgm',
  '.ppm',
]);

/** The image an ocr_image `path` names: absolute, a `/data/…` URL, or relative to the task's data folder. */
async function imageFile(ctx: MethodContext, raw: string): Promise<string> {
  if (raw.includes('\0'))
    throw invalidArgument('ocr_image 失败：参数 path 无效：包含 NUL 字符', { field: 'path' });
  let file: string;
  if (raw.startsWith('/data/')) {
    const found = await resolveDataFile(ctx.dataDir, raw.slice('/data/'.length));
    if (!found.ok) throw invalidArgument(`ocr_image 失败：${raw} 不是一个存在的证据文件`, { field: 'path' });
    file = found.file;
  } else if (isAbsolute(raw)) file = resolve(raw);
  else {
    const dir = taskDir(ctx.dataDir, ctx.task!.id);
    file = resolve(dir, raw);
    const rel = relative(dir, file);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
      throw invalidArgument(
        'ocr_image 失败：相对路径按任务的数据目录解析，不能离开它（别处的图片请传绝对路径）',
        {
          field: 'path',
        },
      );
  }
  const s = await stat(file).catch(() => null);
  if (!s?.isFile())
    throw invalidArgument(
      `ocr_image 失败：服务器上没有图片 ${file}（先用 download_image 下载，或传 index / selector 现场截取）`,
      {
        field: 'path',
        path: file,
      },
    );
  return file;
}

const ocrImageMethod = method({
  name: 'ocr_image',
  summary: '识别图片里的文字：服务器上的图片（path、/data/ 地址），或现场截取的元素（index / selector）',
  ops: [ops.ocr, ops.screenshot, ops.locate],
  meta: {
    task: 'existing',
    reply: {
      ok: 'true：识别完成',
      text: '识别出的文字',
      lineCount: '行数',
      imagePath: '图片在服务器上的路径',
      imageUrl: '图片的 GET 地址',
      target: '现场截取的元素：index=N 或 selector=…',
      language: '识别语言',
      engine: '使用的 OCR 引擎',
      commandSource: 'OCR 命令来自哪里',
      engineLanguage: '引擎使用的语言代码',
      durationMs: '识别耗时',
      empty: '没有识别出文字',
      hint: '没有文字时的建议',
    },
  },
  params: z.object({
    path: z.string().min(1).optional(),
    ...targetParams,
    language: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(600_000).optional(),
  }),
  async run(ctx, p) {
    const cfg = filesOf(ctx).ocr;
    const language = p.language ?? 'zh-Hans-CN';
    if (p.path !== undefined && (p.index !== undefined || p.selector !== undefined))
      throw invalidArgument('ocr_image 失败：path 与 index / selector 只能传一个', { field: 'path' });
    let file: string;
    let target: string | undefined;
    if (p.path !== undefined) {
      file = await imageFile(ctx, p.path);
      if (!OCR_IMAGE_TYPES.has(extname(file).toLowerCase()))
        throw invalidArgument(
          `ocr_image 失败：${basename(file)} 不是 OCR 能读的图片格式（png / jpg / gif / webp / bmp / tiff）`,
          {
            field: 'path',
          },
        );
    } else {
      if (p.index === undefined && p.selector === undefined)
        throw invalidArgument('ocr_image 失败：缺少参数 path（或 index / selector）', { field: 'path' });
      const t = await targetOf(ctx, p);
      target = t.label;
      const page = pageOf(ctx);
      const ref =
        'element_ref' in t.target
          ? t.target.element_ref
          : (await ops.locate.call(page, { target: t.target }, { timeoutMs: 10_000 })).element_ref;
      const shot = await ops.screenshot.call(
        page,
        { element: { ref }, format: 'png' },
        { timeoutMs: SCREENSHOT_TIMEOUT_MS },
      );
      file = join(taskDir(ctx.dataDir, ctx.task!.id), `ocr-${Date.now()}.png`);
      await writeEvidence(file, shot.data);
    }
    const imageUrl = dataUrl(ctx.dataDir, file);
    const around: Data = { imagePath: file, imageUrl, target, language };
    try {
      const r = await ocr(ctx, file, language, p.timeoutMs ? { ...cfg, timeoutMs: p.timeoutMs } : cfg);
      return {
        ok: true,
        text: r.text,
        lineCount: r.lineCount,
        ...around,
        engine: r.engine,
        commandSource: r.commandSource,
        engineLanguage: r.engineLanguage,
        durationMs: r.durationMs,
        empty: r.text === '' ? true : undefined,
        hint:
          r.text === ''
            ? '没有识别出文字：图片可能太小或不含文字；可把 imageUrl 通过 request_human_input 交给人看'
            : undefined,
      };
    } catch (err) {
      if (!(err instanceof TabwrightError)) throw err;
      const d = err.details;
      const fallback = `把图片（imageUrl）通过 request_human_input 交给人看：{"method":"request_human_input","params":{"prompt":"请读出图片里的文字"}}，再请人在浏览器里操作`;
      if (err.code === 'setup_required') {
        throw new CommandFailure(`ocr_image 失败：[ACTION_FAILED] 没有可用的 OCR 引擎（${err.message}）`, {
          errorCode: 'ACTION_FAILED',
          retryable: false,
          engineMissing: true,
          reason: d.reason,
          installedLanguages: d.installedLanguages,
          engineLanguage: d.engineLanguage,
          install:
            'Debian：apt-get install -y tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim（npm start / npm test 以 root 运行时会自动安装）；或设置 TABWRIGHT_OCR_COMMAND="<命令> {input} {output} {language}"',
          fallback,
          ...around,
        });
      }
      if (err.code === 'invalid_request') throw mapEngineError('ocr_image', err);
      throw new CommandFailure(`ocr_image 失败：[ACTION_FAILED] OCR 命令执行失败（${err.message}）`, {
        errorCode: 'ACTION_FAILED',
        retryable: d.reason === 'ocr_timeout',
        retryAfterMs: d.reason === 'ocr_timeout' ? 1000 : undefined,
        ocrFailed: true,
        reason: d.reason,
        exitCode: d.exitCode,
        stderr: d.stderr,
        timedOut: d.timedOut,
        fallback,
        ...around,
      });
    }
  },
});

export const FILES: HttpMethod[] = [uploadFile, downloadImage, ocrImageMethod];

/** For request_human_input's `ocr:true`. */
export async function ocrForHuman(
  ctx: MethodContext,
  file: string,
  language: string | undefined,
): Promise<Data> {
  try {
    const r = await ocr(ctx, file, language ?? 'zh-Hans-CN', filesOf(ctx).ocr);
    return {
      available: true,
      ok: true,
      text: r.text,
      lineCount: r.lineCount,
      engine: r.engine,
      commandSource: r.commandSource,
    };
  } catch (err) {
    const e = err instanceof TabwrightError ? err : undefined;
    return {
      available: e?.code !== 'setup_required',
      ok: false,
      engineMissing: e?.code === 'setup_required' ? true : undefined,
      error: err instanceof Error ? err.message : String(err),
    };
  }
}
