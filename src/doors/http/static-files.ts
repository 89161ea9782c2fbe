import { realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';

const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
  '.avif': 'image/avif',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.html': 'text/plain; charset=utf-8',
};

/** One path segment we are willing to serve: no dot-segments, separators, control characters or hidden files. */
function safeSegment(seg: string): boolean {
  if (seg === '' || seg.startsWith('.')) return false;
  for (const ch of seg) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || c === 0x7f || ch === '/' || ch === '\\' || ch === ':') return false;
  }
  return true;
}

export type Resolved =
  | { ok: true; file: string; contentType: string; size: number }
  | { ok: false; status: 403 | 404 };

/**
 * Resolves the part of a `/data/...` URL after `/data/` (still percent-encoded,
 * as it came off the wire) to a regular file inside `dataDir`. Refuses
 * dot-segments, encoded separators, hidden files and anything whose real
 * path (symlinks followed) leaves the data directory.
 */
export async function resolveDataFile(dataDir: string, rawRest: string): Promise<Resolved> {
  const pathPart = rawRest.split(/[?#]/, 1)[0] ?? '';
  const segments: string[] = [];
  for (const raw of pathPart.split('/')) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return { ok: false, status: 403 };
    }
    if (!safeSegment(seg)) return { ok: false, status: 403 };
    segments.push(seg);
  }
  // At least <taskId>/<file>; the task directory is always a number.
  if (segments.length < 2 || !/^[0-9]+$/.test(segments[0]!)) return { ok: false, status: 403 };
  const root = resolve(dataDir);
  const file = join(root, ...segments);
  if (!inside(root, file)) return { ok: false, status: 403 };
  try {
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (!inside(realRoot, realFile)) return { ok: false, status: 403 };
    const st = await stat(realFile);
    if (!st.isFile()) return { ok: false, status: 404 };
    return {
      ok: true,
      file: realFile,
      contentType: TYPES[extname(realFile).toLowerCase()] ?? 'application/octet-stream',
      size: st.size,
    };
  } catch {
    return { ok: false, status: 404 };
  }
}

function inside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
