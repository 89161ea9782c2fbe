import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ops, TabwrightError } from '../../../engine/api.js';
import type { TableFigures } from '../../../engine/semantics/tables.js';
import { CommandFailure, type Data, invalidArgument } from '../envelope.js';
import { budget, fail, type HttpMethod, type MethodContext, method, pageOf, urlOf } from './common.js';
import { frameIdFor, frameParam, nthParam } from './target.js';

/** Extraction and JavaScript (§8.14). */

const BODY_LIMIT = 100_000;
const EVAL_DEFAULT_MS = 60_000;
const EXTRACT_LIMIT = 20_000;
/** Reads of the page model for markdown and tables. */
const MODEL_TIMEOUT_MS = 20_000;

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

/** A syntax error that looks like a script cut short: where long scripts go instead. */
function truncatedHint(exception: string, body: string): Data {
  if (!/SyntaxError/.test(exception)) return {};
  // The browser says so ("Unexpected end of input"); a script compiled in Node first is wrapped in a
  // function, so its error names the wrapper's "}" instead: then the script's own brackets decide.
  const said = /Unexpected end of input|missing \) after|Unterminated/.test(exception);
  if (!said && !endsOpen(body)) return {};
  return {
    hint: '脚本像是被截断了：长脚本请放进 bodyFile（服务端脚本目录里的文件）',
    scriptLength: body.length,
  };
}

/** Whether a script ends inside a string or with brackets still open (comments are not read). */
function endsOpen(body: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return quote !== null || depth > 0;
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
    const r = await ops.evaluate.call(pageOf(ctx), { source: body, frame }, { timeoutMs: ms });
    return r.value;
  } catch (err) {
    if (err instanceof TabwrightError && err.details.reason === 'script_syntax') {
      // Compiled in Node and refused before anything ran: the parameter to fix is this door's `body`.
      const exception = String(err.details.exception ?? 'SyntaxError');
      throw invalidArgument(`${ctx.method} 失败：执行 JavaScript 失败：${exception}`, {
        field: 'body',
        exception,
        ...truncatedHint(exception, body),
      });
    }
    if (err instanceof TabwrightError && err.details.reason === 'script_error') {
      const exception = String(err.details.exception ?? err.message)
        .replace(/^page\.evaluate: /, '')
        .split('\n')[0]!;
      const data: Data = {
        errorCode: 'ACTION_FAILED',
        retryable: false,
        exception,
        ...truncatedHint(exception, body),
      };
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

const executeJs = method({
  name: 'execute_js',
  summary: '在页面（或 frame）里执行 JavaScript：表达式、函数或带 return 的语句；结果须可 JSON 序列化',
  ops: [ops.evaluate, ops.frames],
  meta: {
    task: 'existing',
    evidence: true,
    reply: {
      result: '脚本的结果（undefined 为 null）',
      awaited: 'true：Promise 已等待完成',
      frame: '指定了 frame 时回显',
      frameUrl: '脚本执行所在 frame 的 URL',
    },
  },
  params: z.object({
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
    if (body === undefined || body.trim() === '')
      throw invalidArgument('execute_js 失败：缺少参数 body', { field: 'body' });
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
      data.frameUrl = (await ops.frames.call(pageOf(ctx), {})).find((f) => f.id === frame)?.url;
    }
    return data;
  },
});

const extractStructuredData = method({
  name: 'extract_structured_data',
  summary: '读取页面的可见文字（innerText，按 maxChars 截断），可附带链接列表',
  ops: [ops.readPageText, ops.readPageLinks],
  meta: {
    task: 'existing',
    reply: {
      query: '回显的 query',
      text: '页面的可见文字（截断后）',
      length: '截断前的长度',
      truncated: '是否截断',
      limit: '截断上限',
      links: 'extractLinks 时：页面链接（text, href）',
    },
  },
  params: z.object({
    query: z.string().optional(),
    extractLinks: z.boolean().optional(),
    maxChars: z.number().int().min(1).max(1_000_000).optional(),
  }),
  async run(ctx, p) {
    const page = pageOf(ctx);
    const text = (await ops.readPageText.call(page, {}, { timeoutMs: 15_000 })).content;
    const limit = p.maxChars ?? EXTRACT_LIMIT;
    const data: Data = {
      query: p.query,
      text: text.length > limit ? text.slice(0, limit) : text,
      length: text.length,
      truncated: text.length > limit,
      limit,
    };
    if (p.extractLinks) {
      data.links = await ops.readPageLinks.call(page, { limit: 500 }, { timeoutMs: 10_000 });
    }
    return data;
  },
});

/** The page's title, or "" when it cannot be read in a moment. */
function titleOf(ctx: MethodContext): Promise<string> {
  return ops.title.call(pageOf(ctx), {}, { timeoutMs: 3_000 }).catch(() => '');
}

const extractMarkdown = method({
  name: 'extract_markdown',
  summary: '把页面（或选择器、frame、某个表格 "table >> nth=N"）转成 markdown，表格为 GFM 表格',
  ops: [ops.markdown],
  meta: {
    task: 'existing',
    reply: {
      markdown: 'markdown 文本（截断后）',
      length: '截断前的长度',
      truncated: '是否截断',
      source: '转换的范围：body、选择器或 "table >> nth=N"',
      url: '页面 URL',
      title: '页面标题',
      links: 'includeLinks 时：链接（text, href）',
    },
  },
  params: z.object({
    selector: z.string().min(1).optional(),
    frame: frameParam,
    nth: nthParam,
    includeLinks: z.boolean().optional(),
    maxChars: z.number().int().min(1).max(2_000_000).optional(),
  }),
  async run(ctx, p) {
    const page = pageOf(ctx);
    const frame = await frameIdFor(ctx, p.frame);
    const tableNth = p.selector && /^table(\s*>>\s*nth=(\d+))?$/.exec(p.selector.trim());
    const table = tableNth ? (p.nth ?? (tableNth[2] !== undefined ? Number(tableNth[2]) : 0)) : undefined;
    let md: { markdown: string; links: { text: string; href: string }[] };
    try {
      md = await ops.markdown.call(
        page,
        { selector: table === undefined ? p.selector : undefined, frame, table, links: p.includeLinks },
        { timeoutMs: MODEL_TIMEOUT_MS },
      );
    } catch (err) {
      if (err instanceof TabwrightError && err.details.reason === 'no_such_table') {
        const total = err.details.total;
        throw fail(
          ctx.method,
          'ELEMENT_NOT_FOUND',
          `没有第 ${table} 个表格：页面上共 ${total} 个（nth 从 0 开始）`,
          { total },
        );
      }
      throw err;
    }
    const source = table !== undefined ? `table >> nth=${table}` : (p.selector ?? 'body');
    const limit = p.maxChars ?? EXTRACT_LIMIT;
    return {
      markdown: md.markdown.length > limit ? md.markdown.slice(0, limit) : md.markdown,
      length: md.markdown.length,
      truncated: md.markdown.length > limit,
      source,
      url: await urlOf(page),
      title: await titleOf(ctx),
      links: p.includeLinks ? md.links : undefined,
    };
  },
});

const findText = method({
  name: 'find_text',
  summary: '在页面可见文字里查找字符串或正则（regex:true），返回每处匹配的行号和上下文',
  ops: [ops.findText],
  meta: {
    task: 'existing',
    reply: {
      matchCount: '匹配总数',
      returned: '返回的匹配数',
      truncated: '是否只返回了一部分（maxMatches）',
      matches: '匹配：index（字符位置）, line, match, before, after',
      source: '查找的范围：body 或选择器',
      textLength: '被查找文字的长度',
    },
  },
  params: z.object({
    text: z.string().min(1),
    regex: z.boolean().optional(),
    contextChars: z.number().int().min(0).max(2000).optional(),
    maxMatches: z.number().int().min(1).max(1000).optional(),
    selector: z.string().min(1).optional(),
    frame: frameParam,
  }),
  async run(ctx, p) {
    const frame = await frameIdFor(ctx, p.frame);
    let found: Awaited<ReturnType<typeof ops.findText.call>>;
    try {
      found = await ops.findText.call(
        pageOf(ctx),
        {
          text: p.text,
          regex: p.regex,
          context_chars: p.contextChars,
          max_matches: p.maxMatches,
          selector: p.selector,
          frame,
        },
        { timeoutMs: 15_000 },
      );
    } catch (err) {
      if (err instanceof TabwrightError && err.details.reason === 'invalid_regex')
        throw invalidArgument(
          `find_text 失败：参数 text 无效：不是合法的正则表达式（${String(err.details.cause)}）`,
          { field: 'text' },
        );
      if (err instanceof TabwrightError && err.code === 'element_not_found' && p.selector !== undefined)
        throw fail(ctx.method, 'ELEMENT_NOT_FOUND', `选择器 ${p.selector} 没有匹配到元素`, {
          selector: p.selector,
        });
      throw err;
    }
    return {
      matchCount: found.match_count,
      returned: found.matches.length,
      truncated: found.match_count > found.matches.length,
      matches: found.matches,
      source: p.selector ?? 'body',
      textLength: found.text_length,
    };
  },
});

/** One table's figures as the reference names them (§8.14 list_tables). */
function tableData(t: TableFigures, index: number): Data {
  return {
    index,
    selector: `table >> nth=${index}`,
    rows: t.rows,
    cols: t.cols,
    headerRows: t.header_rows,
    dataRows: t.data_rows,
    empty: t.empty,
    emptyNote: t.empty
      ? '表格没有数据行：这表示没有记录匹配，不代表金额为零（请确认主体、时间、筛选条件和查询是否成功）'
      : undefined,
    name: t.name,
    textLength: t.text_length,
    imageCount: t.image_count,
    preview: t.preview,
  };
}

const listTables = method({
  name: 'list_tables',
  summary: '列出页面（或 frame）里的表格：行列数、表头行、数据行、图片数和预览',
  ops: [ops.tables],
  meta: {
    task: 'existing',
    reply: {
      count: '表格个数',
      tables:
        '表格：index, selector（"table >> nth=N"）, rows, cols, headerRows, dataRows, empty（没有数据行）, emptyNote, name, textLength, imageCount, preview',
      url: '页面 URL',
      title: '页面标题',
    },
  },
  params: z.object({ frame: frameParam }),
  async run(ctx, p) {
    const page = pageOf(ctx);
    const tables = await ops.tables.call(
      page,
      { frame: await frameIdFor(ctx, p.frame) },
      { timeoutMs: MODEL_TIMEOUT_MS },
    );
    return {
      count: tables.length,
      tables: tables.map(tableData),
      url: await urlOf(page),
      title: await titleOf(ctx),
    };
  },
});

export const EXTRACT: HttpMethod[] = [
  executeJs,
  extractStructuredData,
  extractMarkdown,
  findText,
  listTables,
];
