import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * tabwright's package root: the nearest folder up from this module with tabwright's package.json.
 * Why not a fixed `../..`: this module runs from src/ (tsx), from dist/ (tsc's output, the library)
 * and from dist/bundle/ (the CLI, scripts/bundle-cli.mjs), each at another depth.
 */
export const PACKAGE_ROOT: string = findRoot(dirname(fileURLToPath(import.meta.url)));

/** The nearest folder with tabwright's package.json; without one (a renamed fork), the nearest with any. */
function findRoot(from: string): string {
  let nearest: string | undefined;
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      if (isOurs(manifest)) return dir;
      nearest ??= dir;
    }
    if (dirname(dir) === dir) return nearest ?? join(from, '..');
  }
}

function isOurs(manifest: string): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'tabwright';
  } catch {
    return false;
  }
}
