import { type ErrorCode, TabwrightError } from '../../engine/api.js';
import { rewrite, type WordTable } from '../kit/index.js';
import { CommandFailure, type Data } from './envelope.js';

/** The wire error codes of the reference (§12.1). */
export type WireErrorCode =
  | 'ELEMENT_READ_ONLY'
  | 'ELEMENT_DISABLED'
  | 'ELEMENT_HIDDEN'
  | 'ELEMENT_OBSCURED'
  | 'ELEMENT_NOT_EDITABLE'
  | 'STALE_ELEMENT'
  | 'ACTION_TIMEOUT'
  | 'ACTION_FAILED'
  | 'RATE_LIMITED'
  | 'SPURIOUS_DISPATCH'
  | 'ACTION_UNCERTAIN'
  | 'EVAL_TIMEOUT'
  | 'COMMAND_TIMEOUT'
  | 'INVALID_ARGUMENT'
  | 'ELEMENT_NOT_FOUND'
  /** Several equally good visible elements match; the caller must name one (this door's own code). */
  | 'ELEMENT_AMBIGUOUS'
  | 'PAGE_NAVIGATING'
  | 'NETWORK_ERROR';

/** Default retry hint per wire code (§12.1); codes absent here are not retryable. */
const RETRY_AFTER_MS: Partial<Record<WireErrorCode, number>> = {
  STALE_ELEMENT: 300,
  ACTION_TIMEOUT: 1500,
  RATE_LIMITED: 35000,
  PAGE_NAVIGATING: 1000,
  NETWORK_ERROR: 5000,
};

/** §12.2 text classification, in order; first hit wins. Used when the engine code alone does not decide. */
const TEXT_RULES: [WireErrorCode, RegExp][] = [
  ['SPURIOUS_DISPATCH', /object doesn't exist|cannot find object to call/],
  ['ELEMENT_NOT_FOUND', /element_not_found/],
  [
    'PAGE_NAVIGATING',
    /because "frame" is null|because "page" is null|execution context was destroyed|frame was detached|navigating and changing the document/,
  ],
  ['EVAL_TIMEOUT', /eval_timeout/],
  ['COMMAND_TIMEOUT', /command_timeout/],
  ['NETWORK_ERROR', /net::err_[a-z_]+|network_error/],
  ['ELEMENT_READ_ONLY', /element_read_only|read-only|readonly/],
  ['ELEMENT_DISABLED', /element_disabled|not enabled|element is disabled/],
  ['ELEMENT_OBSCURED', /element_obscured|intercepts pointer events/],
  ['ELEMENT_HIDDEN', /not visible|element_hidden/],
  ['ELEMENT_NOT_EDITABLE', /not editable|element_not_editable/],
  ['STALE_ELEMENT', /not attached|detached|索引越界/],
  ['RATE_LIMITED', /不允许重复提交|请稍候|too many requests|rate limit/],
  ['ACTION_TIMEOUT', /timeout|timed out|超时/],
];

export function classifyText(text: string): WireErrorCode {
  const lower = text.toLowerCase();
  for (const [code, re] of TEXT_RULES) if (re.test(lower)) return code;
  return 'ACTION_FAILED';
}

/** element_not_actionable carries a reason in details; these are the ones with a wire code of their own. */
const ACTIONABILITY: Record<string, WireErrorCode> = {
  read_only: 'ELEMENT_READ_ONLY',
  readonly: 'ELEMENT_READ_ONLY',
  disabled: 'ELEMENT_DISABLED',
  hidden: 'ELEMENT_HIDDEN',
  not_visible: 'ELEMENT_HIDDEN',
  obscured: 'ELEMENT_OBSCURED',
  covered: 'ELEMENT_OBSCURED',
  not_editable: 'ELEMENT_NOT_EDITABLE',
  detached: 'STALE_ELEMENT',
  stale: 'STALE_ELEMENT',
};

interface Mapped {
  code: WireErrorCode;
  retryable: boolean;
  extra: Data;
}

function mapCode(err: TabwrightError): Mapped {
  const d = err.details;
  const byText = (): WireErrorCode =>
    classifyText(`${err.message} ${typeof d.cause === 'string' ? d.cause : ''}`);
  const code: ErrorCode = err.code;
  switch (code) {
    case 'element_not_found':
      // A ref whose element is gone (index from an old snapshot): re-read the page, never another element.
      if (d.reason === 'stale_ref') return { code: 'STALE_ELEMENT', retryable: true, extra: { stale: true } };
      return {
        code: d.reason === 'ambiguous' ? 'ELEMENT_AMBIGUOUS' : 'ELEMENT_NOT_FOUND',
        retryable: false,
        extra: {
          matchCount: typeof d.match_count === 'number' ? d.match_count : undefined,
          candidates: Array.isArray(d.candidates) ? d.candidates : undefined,
        },
      };
    case 'element_not_actionable': {
      const reason = typeof d.reason === 'string' ? d.reason.toLowerCase() : '';
      const wire = ACTIONABILITY[reason] ?? byText();
      const extra: Data = {};
      if (d.covered_by && typeof d.covered_by === 'object') extra.coveredBy = d.covered_by;
      if (reason) extra.reason = reason;
      // Motion ends: the same click a moment later can succeed.
      if (reason === 'unstable') return { code: wire, retryable: true, extra: { ...extra, moving: true } };
      return { code: wire, retryable: wire in RETRY_AFTER_MS, extra };
    }
    case 'navigation_timeout':
      return { code: 'ACTION_TIMEOUT', retryable: true, extra: outcomeFields(d) };
    case 'not_ready': {
      if (d.reason === 'network_error') {
        const netError = typeof d.net_error === 'string' ? d.net_error : undefined;
        return { code: 'NETWORK_ERROR', retryable: err.retryable, extra: { netError } };
      }
      if (typeof d.outcome === 'string') {
        return { code: 'ACTION_TIMEOUT', retryable: err.retryable, extra: outcomeFields(d) };
      }
      const wire = byText();
      return { code: wire, retryable: err.retryable || wire in RETRY_AFTER_MS, extra: {} };
    }
    case 'browser_not_running':
    case 'session_not_found':
    case 'page_not_found':
    case 'permission_denied':
    case 'setup_required':
    case 'unsupported_method':
      // Resending the same command to the same task cannot help: the task needs close + start or another input.
      return { code: 'ACTION_FAILED', retryable: false, extra: {} };
    case 'unsupported_target':
      // The wrong element kind (not_select, not_checkable, not_file_input) says which, as
      // element_not_actionable's reasons do.
      return {
        code: 'ACTION_FAILED',
        retryable: false,
        extra: typeof d.reason === 'string' ? { reason: d.reason } : {},
      };
    case 'invalid_request':
    case 'invalid_selector':
      return { code: 'ACTION_FAILED', retryable: false, extra: {} };
    default: {
      const wire = byText();
      return { code: wire, retryable: wire in RETRY_AFTER_MS && wire !== 'SPURIOUS_DISPATCH', extra: {} };
    }
  }
}

function outcomeFields(d: Record<string, unknown>): Data {
  if (d.outcome === 'not_started') return { started: false };
  if (d.outcome === 'unknown') return { started: true, outcomeUnknown: true };
  return {};
}

/** The reference's literal reasons (§12.1); the engine's own message follows in brackets. */
const REASONS: Partial<Record<WireErrorCode, string>> = {
  ELEMENT_READ_ONLY: '元素只读，请使用日期选择器或页面提供的控件',
  ELEMENT_DISABLED: '元素已禁用',
  ELEMENT_HIDDEN: '元素当前不可见',
  ELEMENT_OBSCURED: '元素被遮挡，无法接收点击',
  ELEMENT_NOT_EDITABLE: '元素不可编辑',
  STALE_ELEMENT: '元素已脱离页面或索引失效，请重新获取页面状态',
  ACTION_TIMEOUT: '等待元素可操作超时；不能据此确定元素不存在或快照过期',
};

/** What the failed element target was, as the engine's message names it (`selector ".x"`, `text "Save"`). */
function targetWords(message: string): string {
  const m = /\b(selector|text|role) ("(?:[^"\\]|\\.)*")/.exec(message);
  if (!m) return '';
  return `${m[1] === 'selector' ? '选择器' : m[1] === 'text' ? '文字' : '角色'} ${m[2]} `;
}

/**
 * The door's own sentence for the engine failures agents meet most, in this door's words (its
 * method and parameter names, Chinese); the engine's English text goes to `data.engineMessage`.
 */
function doorReason(e: TabwrightError, m: Mapped): string | undefined {
  const d = e.details;
  const n = typeof d.match_count === 'number' ? d.match_count : 0;
  if (e.code === 'element_not_found') {
    const t = targetWords(e.message);
    switch (d.reason) {
      case 'stale_ref':
        return `${REASONS.STALE_ELEMENT}：这个 index 对应的元素已被移除或页面已换，请调用 get_browser_state 取新的 index 再操作`;
      case 'no_match':
        return `没有元素匹配${t}（0 个）：请修改选择器或文字，可先用 get_element_count 核对数量；或调用 get_browser_state 后按 index 操作`;
      case 'ambiguous':
        return `${t}匹配到 ${n} 个同样合适的可见元素，无法确定要操作哪一个：请传 nth（从 0 开始）、写更精确的选择器，或调用 get_browser_state 后按 index 操作（候选见 data.candidates）`;
      case 'nth_out_of_range':
        return `${t}匹配到 ${n} 个元素，没有第 ${String(d.nth)} 个：nth 从 0 开始，要小于 ${n}`;
      case 'ambiguous_option':
        return '下拉框里有几个选项的文字相同，无法确定选哪一个：请先用 get_dropdown_options 看清选项，再传更精确的文字';
      case 'no_such_option': {
        // The engine lists them as `label "Banana"`, `value "b"`: the quoted part is the caller's own text.
        const names = (Array.isArray(d.missing) ? d.missing : [])
          .map((x) => /"((?:[^"\\]|\\.)*)"/.exec(String(x))?.[1])
          .filter((x) => x !== undefined);
        const which = names.length > 0 ? ` ${names.map((x) => `"${x}"`).join('、')} 这个` : '要选的';
        return `下拉框里没有${which}选项（或它被禁用了）：请先用 get_dropdown_options 读出现有的选项，再传其中一个的文字`;
      }
      default:
        return undefined;
    }
  }
  if (e.code === 'not_ready' && d.reason === 'network_error') {
    const net = typeof d.net_error === 'string' ? d.net_error : 'ERR_FAILED';
    if (net === 'ERR_INVALID_AUTH_CREDENTIALS')
      return `服务器要求 HTTP 认证（${net}），本任务没有这个源的（正确）凭据：先调用 set_credentials 设置用户名和密码，再打开页面`;
    return /ERR_ABORTED/.test(net)
      ? `打开页面被取消（${net}）：页面自己取消了这次导航（例如链接其实是下载，或又跳去了别处）；用 get_url 看现在的页面`
      : `网络错误（${net}）：浏览器显示的是网络错误页，页面根本没有内容，不是「元素在、只是暂时不可点」；请检查地址、网络或代理后重试`;
  }
  const queued = queueReason(e);
  if (queued) return queued;
  if (e.code === 'invalid_request' && d.field === 'request_id') {
    const id = String(d.request_id ?? '');
    if (d.status === 'expired') return `人工输入请求 ${id} 已过期：请重新调用 request_human_input`;
    if (d.status === 'answered')
      return `人工输入请求 ${id} 已经回答过了，不能再提交：用 get_human_input 读取答案`;
    return `没有人工输入请求 ${id}（请求只保存在内存里，服务重启后就没有了）：请重新调用 request_human_input`;
  }
  if (e.code === 'invalid_request' && d.reason === 'not_an_image')
    return `这个元素（<${String(d.tag ?? '?')}>）上没有可下载的图片：请指向 <img>、<picture>、带背景图的元素、<canvas> 或 <svg>`;
  if (e.code === 'not_ready' && d.reason === 'session_limit')
    return `服务已经有 ${d.sessions} 个任务，达到上限（--max-sessions / TABWRIGHT_MAX_SESSIONS = ${d.max_sessions}）：先 close 不再需要的任务，或等一个任务结束后再 start`;
  if (e.code === 'not_ready' && d.reason === 'low_memory')
    return `机器只剩 ${d.available_mb} MiB 可用内存，低于下限 ${d.min_free_mb} MiB（--min-free-mb / TABWRIGHT_MIN_FREE_MB）：再开一个浏览器任务会拖慢所有任务；请先 close 一些任务或释放内存，稍后再 start`;
  if (e.code === 'page_not_found')
    return d.reason === 'crashed'
      ? '这个标签页崩溃了（渲染进程已退出），上面什么都读不了也做不了：用 close_tab 关掉它，再用 new_tab 或 go_to_url 打开页面；任务本身还能用'
      : '这个任务当前没有打开的标签页（或它已经关闭）：先用 get_tabs 查看，或用 new_tab / go_to_url 打开一个页面';
  if (e.code === 'invalid_selector')
    return `${typeof d.selector === 'string' ? `选择器 ${JSON.stringify(d.selector)}` : '选择器'} 不是合法的 CSS 选择器：请改正它（不支持 :contains() 这类 jQuery 写法，按文字找请用 click_element_by_text），或调用 get_browser_state 后按 index 操作`;
  if (e.code === 'unsupported_target') {
    if (d.reason === 'not_select')
      return '这个元素不是原生下拉框（<select>），不能用 select_dropdown_option：自定义下拉框请先点击它展开，再点击要选的选项';
    if (d.reason === 'not_checkable')
      return '这个元素不是复选框、单选框或开关，不能勾选：请调用 get_browser_state 找到真正的复选框，或直接点击它';
    if (d.reason === 'not_file_input') return notFileInput(d.tag);
  }
  if (e.code === 'element_not_actionable') {
    const literal = REASONS[m.code];
    switch (d.reason) {
      case 'unstable':
        return '元素一直在动（动画或布局变化），在等待时间内没有停下：稍后重试，或加大 timeoutMs';
      case 'hidden':
      case 'not_visible':
        return `${literal}：等它出现（wait_for_element）或调用 get_browser_state 重新查看页面`;
      case 'obscured':
      case 'covered': {
        const c = d.covered_by as { tag?: string; name?: string } | undefined;
        const by = c?.tag ? `被 <${c.tag}>${c.name ? ` "${c.name}"` : ''} 挡住` : '被别的元素挡住';
        return `${literal}：${by}；先关掉遮挡物（get_modals / close_modal）或滚动页面，不要强行点击`;
      }
      case 'disabled':
        return `${literal}：等页面启用它（wait_for_function）或先完成前面的步骤`;
      case 'not_file_input':
        return notFileInput(d.tag);
      default:
        return literal;
    }
  }
  return undefined;
}

/** A file step aimed at another element (the engine refuses it from the guard or from page.upload). */
function notFileInput(tag: unknown): string {
  const what = typeof tag === 'string' ? `这个元素是 <${tag}>，不是` : '这个元素不是';
  return `${what}文件输入框（<input type=file>）：请直接指向文件输入框（它常常是隐藏的，例如 selector 用 input[type=file]），再调用 upload_file`;
}

/** The page's one-operation-at-a-time queue gave up (engine page-queue.ts): started or not, and why. */
function queueReason(e: TabwrightError): string | undefined {
  const d = e.details;
  if (e.code !== 'navigation_timeout' && e.code !== 'not_ready') return undefined;
  if (d.outcome !== 'not_started' && d.outcome !== 'unknown') return undefined;
  const ms = typeof d.timeout_ms === 'number' ? d.timeout_ms : undefined;
  const within = ms === undefined ? '在等待时间内' : `在 ${ms} 毫秒内`;
  if (d.aborted === true)
    return d.outcome === 'not_started'
      ? '命令在开始执行之前被取消了：它没有执行，可以安全地重发'
      : '命令发出之后被取消了：结果未知，重复之前先调用 get_browser_state 检查页面状态';
  if (d.outcome === 'not_started')
    return `这个页面上前面的命令还没结束，这个命令${within}没能开始：它没有执行，可以安全地重发（或加大 timeoutMs）`;
  if (e.code === 'navigation_timeout')
    return `页面${within}没有加载完成，导航可能还在进行：重复之前先用 get_url 看现在的页面，或加大 timeoutMs`;
  return `命令已经发出，但${within}没有完成，结果未知：重复之前先调用 get_browser_state 检查页面状态`;
}

/** The engine's parameter names, as this door's parameters are called (data.field). */
const FIELD_WORDS: Record<string, string> = {
  request_id: 'requestId',
  timeout_ms: 'timeoutMs',
  element_ref: 'index',
};

/** Other doors' names in engine advice, and this door's words for them (fallback for untranslated texts). */
const DOOR_WORDS: WordTable = [
  [/\bnetwork\.list\b/g, 'get_requests'],
  [/\bpage\.wait\b/g, 'wait_for_element / wait_for_function'],
  [/\bdetails\.conditions\b/g, 'data.conditions'],
  [/\ban element_ref\b/g, 'an index'],
  [/\belement_refs?\b/g, 'index'],
  [/\btimeout_ms\b/g, 'timeoutMs'],
  [/\b[Tt]ake (?:a new|a|another) snapshot\b/g, 'call get_browser_state'],
];

export function inDoorWords(text: string): string {
  return rewrite(text, DOOR_WORDS);
}

/** Extra sentence appended to engine messages whose advice is phrased in engine terms. */
const DOOR_HINTS: Partial<Record<ErrorCode, string>> = {
  browser_not_running: '（HTTP 接口：请对这个 id 调用 close，再 start）',
  session_not_found: '（HTTP 接口：这个 id 已关闭，请重新 start）',
};

/**
 * Refusals of the engine's security rules, in this door's language with what to do next (the
 * engine's English advice names flags and fields of other doors). undefined: use the engine text.
 */
function securityReason(e: TabwrightError): string | undefined {
  if (e.code !== 'permission_denied') return undefined;
  const d = e.details;
  const list = (v: unknown) => (Array.isArray(v) ? v.join('、') : '');
  switch (d.reason) {
    case 'file_url_refused':
      return `拒绝打开 file: 地址 ${d.url}：默认不允许读取本机文件（防止本地文件被带出去）；请改用 http(s) 地址，确实需要时用 tabwright serve --allow-file-urls 重启服务`;
    case 'scheme_refused':
      return `拒绝打开 ${d.scheme} 地址：不打开浏览器内部页面、扩展、view-source: 或 javascript: 地址；请用 http(s)、about:blank 或 data: 地址`;
    case 'policy_widening': {
      const allowed = [list(d.allowed), list(d.allowed_host_patterns)].filter(Boolean).join('、');
      return `这个服务只允许访问 ${allowed}（tabwright serve --allow-origin 设定的上限）；任务只能缩小这个范围，不能扩大（不允许：${list(d.refused)}）。请只传其中的一部分，或不传 allowedOrigins 直接使用全部`;
    }
    default:
      if (typeof d.origin === 'string' || d.reason === 'origin_not_allowed') {
        const where = typeof d.origin === 'string' ? d.origin : String(d.url);
        return `拒绝访问 ${where}：不在这个任务的来源白名单（allowedOrigins）里，没有执行；请只访问白名单里的网站，或 close 后用包含它的 allowedOrigins 重新 start`;
      }
      return undefined;
  }
}

/**
 * Maps an engine error to the wire failure: `<method> 失败：[CODE] <engine message>`
 * plus errorCode / retryable / retryAfterMs. Engine parameter errors that name a
 * field are parameter problems like the door's own: INVALID_ARGUMENT (HTTP 400), the
 * same code in the message and in `data.errorCode`.
 */
export function mapEngineError(method: string, err: unknown): CommandFailure {
  if (err instanceof CommandFailure) return err;
  const e = err instanceof TabwrightError ? err : toError(err);
  const m = mapCode(e);
  const own = doorReason(e, m);
  const reason = own ?? securityReason(e) ?? `${inDoorWords(e.message)}${DOOR_HINTS[e.code] ?? ''}`;
  const data: Data = {
    errorCode: m.code,
    retryable: m.retryable,
    retryAfterMs: m.retryable ? (RETRY_AFTER_MS[m.code] ?? 1000) : undefined,
    engineError: e.code,
    engineMessage: own ? e.message : undefined,
    ...m.extra,
  };
  if (e.code === 'permission_denied' && typeof e.details.reason === 'string') data.reason = e.details.reason;
  if (
    (e.code === 'invalid_request' || e.code === 'invalid_selector') &&
    typeof e.details.field === 'string'
  ) {
    data.invalidArgument = true;
    data.errorCode = 'INVALID_ARGUMENT';
    data.started = false;
    data.field = FIELD_WORDS[e.details.field] ?? e.details.field;
  }
  return new CommandFailure(`${method} 失败：[${data.errorCode}] ${reason}`, data);
}

function toError(err: unknown): TabwrightError {
  const message = err instanceof Error ? err.message : String(err);
  return new TabwrightError('internal_error', message.split('\n', 1)[0] ?? message, {
    retryable: false,
    cause: err,
  });
}
