import type { ReplyFields } from './common.js';

/**
 * Reply fields several methods share, for describe_method (each row lists its own fields and spreads
 * these). Names and meanings follow the reference (§7, §10); the texts are this door's language.
 */

/** Added to every successful page-changing method (§7.1); describe_method appends them itself. */
export const EVIDENCE_REPLY: ReplyFields = {
  seq: '任务内的证据序号（截图和状态文件共用），从 1 开始',
  screenshot: '自动截图的 GET 地址，如 /data/1001/3.png',
  screenshot_path: '自动截图在服务器上的绝对路径（compact 模式不返回）',
  screenshot_error: '截图失败时的原因；截图失败不会让命令失败',
};

/** The short receipt of non-click actions (input, check, select, scroll, …). */
export const ACTION_REPLY: ReplyFields = {
  changed: '观察窗口内页面是否有变化',
  changeStatus: '变化判断：changed / unchanged / unknown',
  verified: '引擎核对过的结果（如输入框的最终值），有核对时才给',
  actionStatus: 'completed = 动作已执行；unknown = 结果不确定',
  hint: '没有看到变化时下一步该怎么做',
  dialog: '动作触发的原生对话框及其处理方式',
  warnings: '引擎的提醒',
};

/** A click receipt (§10.1). */
export const CLICK_REPLY: ReplyFields = {
  changed: '观察窗口内页面是否有变化（URL、DOM、标签页、对话框、下载）',
  changeStatus: '变化判断：changed / unchanged / unknown',
  observationComplete: '观察窗口是否完整读完页面',
  observationWindowMs: '观察窗口上限（毫秒）',
  observedMs: '实际观察的毫秒数',
  urlBefore: '动作前的 URL',
  urlAfter: '动作后的 URL',
  tabCountBefore: '动作前的标签页数',
  tabCountAfter: '动作后的标签页数',
  textLengthBefore: '动作前的页面文本长度',
  textLengthAfter: '动作后的页面文本长度',
  actionStatus: 'completed = 点击已发出；unknown = 结果不确定',
  effective: '点击是否生效（false：JS 点击后页面没有反应；null：无法判断）',
  mode: '实际使用的方式：native / mouse / js',
  hit: '索引或选择器解析到的元素',
  probeTrustworthy: '页面没有跳转，前后对比可信',
  domMutations: '观察窗口内的 DOM 变动次数',
  requestsDuringWindow: '观察窗口内发出的请求数',
  retrySafe: 'false：结果不确定，不要直接重试',
  actionError: '结果不确定的原因',
  hint: '没有看到变化时下一步该怎么做',
  newTabs: '点击打开的新标签页的 URL',
  dialog: '点击触发的原生对话框及其处理方式',
  fileChooser: '点击打开的文件选择框（selector, multiple, accept）',
  downloads: '点击开始的下载（downloadId, filename）',
  warnings: '引擎的提醒',
  verified: 'verify 条件是否满足',
};

/** A navigation's reply. */
export const NAVIGATION_REPLY: ReplyFields = {
  status: '主文档响应的 HTTP 状态码（没有响应时为 0）',
  url: '导航后的 URL',
  title: '导航后的标题',
  download: '地址是文件时开始的下载（downloadId, filename）',
};

/** A wait's timing. */
export const WAITED_REPLY: ReplyFields = { waitedMs: '等待了多少毫秒' };

/** Where a selector choice came from (§8.5). */
export const CHOICE_REPLY: ReplyFields = {
  matched: '选择器匹配到的元素数',
  chosenIndex: '使用的是第几个匹配（从 0 开始）',
  visibleMatched: '其中可见的个数',
  selectorNote: '匹配到多个时为什么选了这一个（先可见，再能接收点击的）',
  hiddenMatchNote: '有不可见的匹配时的说明',
  explicitNth: '是否由 nth 指定',
  tag: '选中元素的标签',
  animated: '选中的元素正在播放动画（点击用真实鼠标点它当时的位置，mode 为 mouse）',
  text: '选中元素的文字',
  outerHtml: '选中元素的 HTML（前 300 个字符）',
};

/** What a selector click adds when it opened a tab (§8.5). */
export const SWITCHED_REPLY: ReplyFields = {
  switchedToNewTab: '点击打开了新标签页，任务已切换过去',
  currentIndex: '切换后的 pageIndex',
};

/** A saved image or file. */
export const FILE_REPLY: ReplyFields = {
  path: '服务器上的绝对路径',
  url: 'GET 地址（/data/...）',
  size: '字节数',
};
