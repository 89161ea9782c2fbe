import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Finding a browser to connect to (the seed's raw helpers detectBrowsers and
 * resolveWsUrl): DevToolsActivePort files of the usual Chromium-family
 * profiles, and the conventional port 9222. Discovery only reads; it never
 * starts, focuses or sends input to a browser.
 */
export interface DetectedBrowser {
  source: string;
  port: number;
  wsUrl: string | null;
  reachable: boolean;
}

const PROFILE_DIRS = [
  '.config/chromium',
  '.config/google-chrome',
  '.config/google-chrome-beta',
  '.config/google-chrome-unstable',
  '.config/BraveSoftware/Brave-Browser',
  '.config/microsoft-edge',
];

async function versionInfo(
  httpBase: string,
  timeoutMs = 1500,
): Promise<{ webSocketDebuggerUrl?: string; Browser?: string } | null> {
  try {
    const res = await fetch(`${httpBase}/json/version`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    return (await res.json()) as { webSocketDebuggerUrl?: string };
  } catch {
    return null;
  }
}

export async function detectBrowsers(): Promise<DetectedBrowser[]> {
  const found: DetectedBrowser[] = [];
  const seen = new Set<number>();
  for (const rel of PROFILE_DIRS) {
    const file = join(homedir(), rel, 'DevToolsActivePort');
    if (!existsSync(file)) continue;
    const [portLine, path] = readFileSync(file, 'utf8').split('\n');
    const port = Number(portLine);
    if (!Number.isInteger(port) || port <= 0 || seen.has(port)) continue;
    seen.add(port);
    const info = await versionInfo(`http://127.0.0.1:${port}`);
    found.push({
      source: file,
      port,
      wsUrl: info?.webSocketDebuggerUrl ?? (path ? `ws://127.0.0.1:${port}${path.trim()}` : null),
      reachable: !!info,
    });
  }
  if (!seen.has(9222)) {
    const info = await versionInfo('http://127.0.0.1:9222', 800);
    if (info)
      found.push({
        source: 'port 9222',
        port: 9222,
        wsUrl: info.webSocketDebuggerUrl ?? null,
        reachable: true,
      });
  }
  return found;
}

/** The browser's WebSocket URL from {port, host} or an http://host:port URL. */
export async function resolveWsUrl(
  input: { port?: number; host?: string } | string | number,
): Promise<string> {
  let base: string;
  if (typeof input === 'number') base = `http://127.0.0.1:${input}`;
  else if (typeof input === 'string') {
    if (input.startsWith('ws://') || input.startsWith('wss://')) return input;
    base = input.replace(/\/$/, '');
  } else base = `http://${input.host ?? '127.0.0.1'}:${input.port ?? 9222}`;
  const info = await versionInfo(base, 5000);
  if (!info?.webSocketDebuggerUrl)
    throw new Error(
      `No DevTools endpoint answers at ${base}/json/version. Start Chromium with --remote-debugging-port.`,
    );
  return info.webSocketDebuggerUrl;
}
