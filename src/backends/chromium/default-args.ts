import { createRequire } from 'node:module';

interface ServerChromium {
  _innerDefaultArgs(options: { args: string[]; headless: boolean }): string[];
}

let cached: string[] | undefined;

/**
 * The switches playwright-core itself puts on a Chromium launch (read from its own launcher, the
 * same module instance): the launch merges its --disable-features into ours (flags.ts). Empty when
 * this playwright-core cannot tell (then no --disable-features of ours replaces its list).
 */
export function driverDefaultArgs(): string[] {
  if (cached) return cached;
  try {
    const { server } = createRequire(import.meta.url)('playwright-core/lib/coreBundle') as {
      server: { createPlaywright(o: { sdkLanguage: string }): { chromium: ServerChromium } };
    };
    cached = server.createPlaywright({ sdkLanguage: 'javascript' }).chromium._innerDefaultArgs({
      args: [],
      headless: true,
    });
  } catch {
    cached = [];
  }
  return cached;
}
