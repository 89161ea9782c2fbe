import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

/** The package version, read from tabwright's package.json. */
export const VERSION: string = (() => {
  try {
    return JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version as string;
  } catch {
    return '0.0.0';
  }
})();
