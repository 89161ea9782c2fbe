import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, relative, resolve } from 'node:path';
import { TabwrightError } from '../../engine/api.js';

/** Upload roots when none are configured: the working directory and the OS temp dir. */
export function defaultUploadRoots(): string[] {
  return [process.cwd(), tmpdir()];
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/**
 * Secure by default: a page (or a prompt injected by one) must not get an
 * agent to upload ~/.ssh. Files must be absolute paths inside an upload root
 * (symlinks resolved); anything else is permission_denied naming the roots.
 */
export function checkUploads(files: string[], roots: string[] = defaultUploadRoots()): string[] {
  const realRoots = roots.map(real);
  return files.map((f) => {
    if (!isAbsolute(f)) {
      throw new TabwrightError('invalid_request', `Upload paths must be absolute; got "${f}".`, {
        details: { field: 'files' },
      });
    }
    const path = real(f);
    const inside = realRoots.some((r) => {
      const rel = relative(r, path);
      return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
    });
    if (!inside) {
      throw new TabwrightError(
        'permission_denied',
        `"${f}" is outside the upload directories (${realRoots.join(', ')}). Copy the file there, or start the server with --upload-dir.`,
        { details: { field: 'files', roots: realRoots } },
      );
    }
    return path;
  });
}
