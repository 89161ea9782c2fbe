/**
 * `start {browser}` (reference §8.1): which browser a task asks for, which one runs, and how the
 * reply says so. Upstream's contract is to start anyway when the asked-for browser is not
 * available and report the mismatch (`engineHonored:false` + `engineWarning`), never to refuse.
 */

/** Upstream's browser names (its BrowserChoice), in its order: get_config `typeChoices`, start's error. */
export const BROWSER_CHOICES = ['auto', 'chromium', 'chrome', 'edge', 'firefox'] as const;
export type RequestedBrowser = (typeof BROWSER_CHOICES)[number];

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

/**
 * The engine backend a request starts on: `auto` the server's default (its first family: Chromium
 * unless `tabwright serve --browser firefox`), `firefox` Firefox when the engine has it, every other
 * name Chromium (Chrome and Edge are Chromium builds: productFor picks the binary).
 */
export function familyFor<F extends string>(requested: RequestedBrowser, families: readonly F[]): F {
  const has = (f: string) => families.find((x) => x === f);
  if (requested === 'auto') return families[0]!;
  return (requested === 'firefox' ? has('firefox') : undefined) ?? has('chromium') ?? families[0]!;
}

/**
 * The engine's `product` for a request: chrome / edge when that build is installed here (engine
 * diagnostics `products`, the Chromium backend's discovery) and the task runs on Chromium; else none
 * (Chromium's own binary, and the reply's engineWarning says so).
 */
export function productFor(
  requested: RequestedBrowser,
  family: string,
  products: Readonly<Record<string, string>>,
): 'chrome' | 'edge' | undefined {
  return (requested === 'chrome' || requested === 'edge') && family === 'chromium' && products[requested]
    ? requested
    : undefined;
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
  /** The Selenium Grid the task runs on (`tabwright serve --grid`), if any. */
  grid?: string,
): string {
  const head = `请求的浏览器是 ${requested}，实际用的是 ${effective}：`;
  const ran = DISPLAY[effective];
  if (grid !== undefined && requested !== 'firefox')
    return `${head}这个服务的任务跑在 Selenium Grid（${grid}）的节点上，用的是节点的浏览器（${ran}）；要用本机的 ${DISPLAY[requested]}，请不带 --grid 启动 tabwright serve，或传 profile（profile 任务在本机启动）`;
  if (requested === 'firefox')
    return `${head}这个服务没有 Firefox 后端（tabwright serve 启动时本机没有找到 Firefox），已用 ${ran} 启动；要用 Firefox：安装它（Debian：apt-get install -y firefox-esr）或设 TABWRIGHT_FIREFOX=<路径>，再重启 tabwright serve；get_config 的 browsers 列出可用的引擎`;
  if (requested === 'chrome' || requested === 'edge') {
    const variable = requested === 'chrome' ? 'TABWRIGHT_CHROME' : 'TABWRIGHT_EDGE';
    return `${head}本机没有找到 ${DISPLAY[requested]}（tabwright doctor 列出找过的路径），已改用 ${ran} 启动，页面行为一致，登录状态不共享；要用 ${DISPLAY[requested]}：安装它，或以 ${variable}=<可执行文件路径> 重启 tabwright serve`;
  }
  // chromium asked, and the server's Chromium-family binary is a vendor build (the only one installed).
  return `${head}这个服务的 Chromium 系浏览器就是 ${ran}（tabwright doctor 列出它的路径），已用它启动；要用 Chromium 请安装它，或以 TABWRIGHT_CHROMIUM=<路径> 重启 tabwright serve`;
}
