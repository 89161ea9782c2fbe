/**
 * `start {browser}` (reference §8.1): which browser a task asks for, which one runs, and how the
 * reply says so. Upstream's contract is to start anyway when the asked-for browser is not
 * available and report the mismatch (`engineHonored:false` + `engineWarning`), never to refuse.
 */

export type RequestedBrowser = 'auto' | 'chromium' | 'chrome' | 'edge' | 'firefox';

const ALIASES: Record<string, RequestedBrowser> = {
  '': 'auto',
  auto: 'auto',
  default: 'auto',
  bundled: 'chromium',
  chromium: 'chromium',
  chrome: 'chrome',
  'google-chrome': 'chrome',
  edge: 'edge',
  msedge: 'edge',
  firefox: 'firefox',
  ff: 'firefox',
  gecko: 'firefox',
};

/** The normalized name, or undefined for a name upstream does not know either. */
export function normalizeBrowser(name: string | undefined): RequestedBrowser | undefined {
  return ALIASES[(name ?? '').trim().toLowerCase()];
}

/** The engine backend a request starts on: Firefox when the engine has it, else the default (Chromium). */
export function familyFor<F extends string>(requested: RequestedBrowser, families: readonly F[]): F {
  const has = (f: string) => families.find((x) => x === f);
  return (requested === 'firefox' ? has('firefox') : undefined) ?? has('chromium') ?? families[0]!;
}

/** What actually runs, named as upstream names browsers, from the backend family and the browser's own label. */
export function effectiveBrowser(family: string, label: string): Exclude<RequestedBrowser, 'auto'> {
  if (family === 'firefox') return 'firefox';
  if (/edge/i.test(label)) return 'edge';
  if (/chrome/i.test(label) && !/chromium/i.test(label)) return 'chrome';
  return 'chromium';
}

const DISPLAY: Record<Exclude<RequestedBrowser, 'auto'>, string> = {
  chromium: 'Chromium',
  chrome: 'Google Chrome',
  edge: 'Microsoft Edge',
  firefox: 'Firefox',
};

/** `engineWarning` (only when not honoured): what was asked, what runs, why, and what to do. */
export function engineWarning(
  requested: Exclude<RequestedBrowser, 'auto'>,
  effective: Exclude<RequestedBrowser, 'auto'>,
  /** Vendor builds installed here, by path (engine.diagnostics `products`, the backend's discovery). */
  products: Readonly<Record<string, string>>,
): string {
  const head = `请求的浏览器是 ${requested}，实际用的是 ${effective}：`;
  if (requested === 'firefox')
    return `${head}这个服务进程没有 Firefox 后端（只驱动 ${DISPLAY[effective]}），已用 ${DISPLAY[effective]} 启动；需要 Firefox 时请用带 Firefox 后端的 tabwright serve 重启服务，用 get_config 查看可用的浏览器`;
  if (requested === 'chrome' || requested === 'edge') {
    const found = products[requested];
    return found
      ? `${head}本机装有 ${DISPLAY[requested]}（${found}），但这个服务用的是 ${DISPLAY[effective]}，已用它启动；要用 ${DISPLAY[requested]} 请以 TABWRIGHT_CHROMIUM=${found} 重启 tabwright serve`
      : `${head}本机没有安装 ${DISPLAY[requested]}（tabwright doctor 列出找过的路径），已改用 ${DISPLAY[effective]} 启动；两者页面行为一致，登录状态不共享`;
  }
  return `${head}这个服务没有按 browser 参数切换浏览器，已用 ${DISPLAY[effective]} 启动；用 get_config 查看可用的浏览器`;
}
