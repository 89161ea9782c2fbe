import { readFileSync } from 'node:fs';

/** The package version, read from package.json next to dist/ or src/. */
export const VERSION: string = (() => {
  try {
    return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
  } catch {
    return '0.0.0';
  }
})();
