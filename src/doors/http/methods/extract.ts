import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { readLinks, readText } from '../../../engine/content.js';
import { TabwrightError } from '../../../engine/errors.js';
import { pageFrames } from '../../../engine/frames.js';
import type { SnapshotNode } from '../../../snapshot/index.js';
import { CommandFailure, type Data, invalidArgument } from '../envelope.js';
import { renderMarkdown, tableStats } from '../render/markdown.js';
import { budget, def, fail, type MethodContext, type MethodDef, pageOf, sessionOf } from './common.js';
import { frameIdFor, frameParam, nthParam } from './target.js';

/** Extraction and JavaScript (§8.14). */

const BODY_LIMIT = 100_000;
const EVAL_DEFAULT_MS = 60_000;
const EXTRACT_LIMIT = 20_000;

/**
 * `{{name}}` placeholders → JSON-encoded values; a quoted placeholder (`"{{n}}"` or `'{{n}}'`) is
 * replaced including its quotes. Unknown names are left as they are.
 */
export function substituteVars(body: string, vars: Record<string, unknown> | undefined): string {
  if (!vars) return body;
  return body.replace(
    /(["'])\{\{\s*([A-Za-z_$][\w$]*)\s*\}\}\1|\{\{\s*([A-Za-z_$][\w$]*)\s*\}\}/g,
    (m, _q, a, b) => {
      const name = (a ?? b) as string;
      if (!Object.hasOwn(vars, name)) return m;
      const v = vars[name];
      return v === undefined ? 'undefined' : JSON.stringify(v);
    },
  );
}

function scriptsDir(ctx: MethodContext): string {
  return join(ctx.engine.home, 'scripts', 'js');
}

export interface EvalOutcome {
  result: unknown;
}

/** Runs a script through the engine (main frame, or the engine frame id `frame`), mapping its failures to the reference's wording. */
export async function runScript(
  ctx: MethodContext,
  body: string,
  timeoutMs: number | undefined,
  frame?: string,
): Promise<unknown> {
  const ms = timeoutMs === 0 ? 60_000 : budget(timeoutMs, EVAL_DEFAULT_MS);
  try {
    const r = await pageOf(ctx).evaluateScript(body, { timeoutMs: ms, frame });
    return r.value;
  } catch (err) {
    if (err instanceof TabwrightError && err.details.reason === 'script_error') {
      const exception = String(err.details.exception ?? err.message)
        .replace(/^page\.evaluate: /, '')
        .split('\n')[0]!;
      const data: Data = { errorCode: 'ACTION_FAILED', retryable: false, exception };
      if (
        /SyntaxError/.test(exception) &&
        /Unexpected end of input|missing \) after|Unterminated/.test(exception)
      ) {
        data.hint = '脚本像是被截断了：长脚本请放进 bodyFile（服务端脚本目录里的文件）';
        data.scriptLength = body.length;
      }
      throw new CommandFailure(`${ctx.method} 失败：执行 JavaScript 失败：${exception}`, data);
    }
    if (
      err instanceof TabwrightError &&
      (err.details.outcome === 'unknown' || err.code === 'navigation_timeout') &&
      !err.details.aborted
    ) {
      throw new CommandFailure(
        `${ctx.method} 失败：[EVAL_TIMEOUT] 脚本在 ${ms} ms 内没有结束：结果未知，可能已执行一半；请用 get_browser_state / diff_dom_text 核对，或拆分脚本`,
        { errorCode: 'EVAL_TIMEOUT', retryable: false, outcomeUnknown: true, evalTimeoutMs: ms },
      );
    }
    throw err;
  }
}

const executeJs = def({
  name: 'execute_js',
  task: 'existing',
  schema: z.object({
    body: z.string().optional(),
    bodyFile: z.string().min(1).optional(),
    vars: z.record(z.string(), z.unknown()).optional(),
    frame: frameParam,
    retryOnSpurious: z.boolean().optional(),
    timeoutMs: z.number().int().min(0).max(600_000).optional(),
  }),
  async run(ctx, p) {
    let body = p.body;
    if ((body === undefined || body.trim() === '') && p.bodyFile) {
      if (!/^[\w.-]+$/.test(p.bodyFile) || p.bodyFile.startsWith('.')) {
        throw invalidArgument('execute_js 失败：参数 bodyFile 无效：只能是脚本目录里的文件名（不能带路径）', {
          field: 'bodyFile',
        });
      }
      body = await readFile(join(scriptsDir(ctx), p.bodyFile), 'utf8').catch(() => {
        throw fail(ctx.method, 'ACTION_FAILED', `脚本文件不存在：${p.bodyFile}（目录 ${scriptsDir(ctx)}）`, {
          jsDir: scriptsDir(ctx),
        });
      });
    }
    if (body === undefined || body.trim() === '') throw invalidArgument('缺少参数 body', { field: 'body' });
    if (body.length > BODY_LIMIT) {
      throw invalidArgument(`execute_js 失败：参数 body 无效：脚本超过 ${BODY_LIMIT} 个字符，请用 bodyFile`, {
        field: 'body',
        scriptLength: body.length,
      });
    }
    const frame = await frameIdFor(ctx, p.frame);
    const result = await runScript(ctx, substituteVars(body, p.vars), p.timeoutMs, frame);
    const data: Data = { result: result === undefined ? null : result, awaited: true };
    if (frame !== undefined) {
      data.frame = p.frame;
      data.frameUrl = pageFrames(pageOf(ctx)).find((f) => f.id === frame)?.url;
    }
    return data;
  },
});

async function innerText(ctx: MethodContext, selector?: string, frame?: string): Promise<string> {
  try {
    return (await readText(pageOf(ctx), selector, { timeoutMs: 15_000, frame })).content;
  } catch (err) {
    if (err instanceof TabwrightError && err.code === 'element_not_found' && selector !== undefined)
      throw fail(ctx.method, 'ELEMENT_NOT_FOUND', `选择器 ${selector} 没有匹配到元素`, { selector });
    throw err;
  }
}

const extractStructuredData = def({
  name: 'extract_structured_data',
  task: 'existing',
  schema: z.object({
    query: z.string().optional(),
    extractLinks: z.boolean().optional(),
    maxChars: z.number().int().min(1).max(1_000_000).optional(),
  }),
  async run(ctx, p) {
    const text = await innerText(ctx);
    const limit = p.maxChars ?? EXTRACT_LIMIT;
    const data: Data = {
      query: p.query,
      text: text.length > limit ? text.slice(0, limit) : text,
      length: text.length,
      truncated: text.length > limit,
      limit,
    };
    if (p.extractLinks) {
      data.links = await readLinks(pageOf(ctx), 500, { timeoutMs: 10_000 });
    }
    return data;
  },
});

/** The engine model of the main document or of one frame (`frame`: engine frame id), optionally scoped. */
async function model(
  ctx: MethodContext,
  selector?: string,
  urls = false,
  frame?: string,
): Promise<SnapshotNode> {
  const snap = await sessionOf(ctx).page().snapshot(
    {
      include_frames: false,
      include_urls: urls,
      scope_selector: selector,
      scope_frame: frame,
      max_chars: 2_000_000,
    },
    { timeoutMs: 20_000 },
  );
  return snap.model;
}

function tablesOf(root: SnapshotNode): SnapshotNode[] {
  const out: SnapshotNode[] = [];
  const walk = (n: SnapshotNode) => {
    if (n.tag === 'table' || n.role === 'table' || n.role === 'grid') out.push(n);
    for (const c of n.children) walk(c);
  };
  walk(root);
  return out;
}

const extractMarkdown = def({
  name: 'extract_markdown',
  task: 'existing',
  schema: z.object({
    selector: z.string().min(1).optional(),
    frame: frameParam,
    nth: nthParam,
    includeLinks: z.boolean().optional(),
    maxChars: z.number().int().min(1).max(2_000_000).optional(),
  }),
  async run(ctx, p) {
    const page = pageOf(ctx);
    const frame = await frameIdFor(ctx, p.frame);
    let root: SnapshotNode;
    let source = 'body';
    const tableNth = p.selector && /^table(\s*>>\s*nth=(\d+))?$/.exec(p.selector.trim());
    if (tableNth) {
      const n = p.nth ?? (tableNth[2] !== undefined ? Number(tableNth[2]) : 0);
      const tables = tablesOf(await model(ctx, undefined, p.includeLinks, frame));
      if (n >= tables.length) {
        throw fail(
          ctx.method,
          'ELEMENT_NOT_FOUND',
          `没有第 ${n} 个表格：页面上共 ${tables.length} 个（nth 从 0 开始）`,
          {
            total: tables.length,
          },
        );
      }
      root = tables[n]!;
      source = `table >> nth=${n}`;
    } else {
      root = await model(ctx, p.selector, p.includeLinks, frame);
      if (p.selector) source = p.selector;
    }
    const md = renderMarkdown(root, { links: p.includeLinks ?? false });
    const limit = p.maxChars ?? EXTRACT_LIMIT;
    return {
      markdown: md.text.length > limit ? md.text.slice(0, limit) : md.text,
      length: md.text.length,
      truncated: md.text.length > limit,
      source,
      url: page.url(),
      title: await page.title({ timeoutMs: 3_000 }).catch(() => ''),
      links: p.includeLinks ? md.links : undefined,
    };
  },
});

const findText = def({
  name: 'find_text',
  task: 'existing',
  schema: z.object({
    text: z.string().min(1),
    regex: z.boolean().optional(),
    contextChars: z.number().int().min(0).max(2000).optional(),
    maxMatches: z.number().int().min(1).max(1000).optional(),
    selector: z.string().min(1).optional(),
    frame: frameParam,
  }),
  async run(ctx, p) {
    let re: RegExp;
    try {
      re = p.regex ? new RegExp(p.text, 'g') : new RegExp(p.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
    } catch (err) {
      throw invalidArgument(
        `find_text 失败：参数 text 无效：不是合法的正则表达式（${(err as Error).message}）`,
        {
          field: 'text',
        },
      );
    }
    const text = await innerText(ctx, p.selector, await frameIdFor(ctx, p.frame));
    const ctxChars = p.contextChars ?? 80;
    const max = p.maxMatches ?? 20;
    const matches: Data[] = [];
    let count = 0;
    for (const m of text.matchAll(re)) {
      if (m[0] === '') continue;
      count++;
      if (matches.length < max) {
        const at = m.index ?? 0;
        matches.push({
          index: at,
          line: text.slice(0, at).split('\n').length,
          match: m[0],
          before: text.slice(Math.max(0, at - ctxChars), at),
          after: text.slice(at + m[0].length, at + m[0].length + ctxChars),
        });
      }
    }
    return {
      matchCount: count,
      returned: matches.length,
      truncated: count > matches.length,
      matches,
      source: p.selector ?? 'body',
      textLength: text.length,
    };
  },
});

const listTables = def({
  name: 'list_tables',
  task: 'existing',
  schema: z.object({ frame: frameParam }),
  async run(ctx, p) {
    const page = pageOf(ctx);
    const tables = tablesOf(await model(ctx, undefined, false, await frameIdFor(ctx, p.frame)));
    return {
      count: tables.length,
      tables: tables.map((t, index) => ({ index, selector: `table >> nth=${index}`, ...tableStats(t) })),
      url: page.url(),
      title: await page.title({ timeoutMs: 3_000 }).catch(() => ''),
    };
  },
});

export const EXTRACT: MethodDef[] = [executeJs, extractStructuredData, extractMarkdown, findText, listTables];
