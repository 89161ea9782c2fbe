import { createHash, randomBytes } from 'node:crypto';
import { link, lstat, mkdir, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { log } from '../../engine/api.js';
import { type Data, invalidArgument } from './envelope.js';

/**
 * File staging (reference §2.1): `POST /playwright/upload` puts a file in the staging directory so an
 * agent on another machine can pass its path to `upload_file`; `GET` lists, `DELETE ?name=` removes.
 * Pure file handling: the routes are in upload-routes.ts, `upload_file` in methods/files.ts.
 */

export interface UploadConfig {
  /** The staging directory (default `<engine home>/upload`). */
  dir: string;
  /** Per file (default 64 MiB, reference `browser.upload.maxBytes`). */
  maxBytes: number;
  /** Same name replaces the file (default); false renames `a.jpg` → `a-1.jpg`. */
  overwrite: boolean;
}

export const DEFAULT_UPLOAD_MAX_BYTES = 64 * 1024 * 1024;

/** Longest file name most file systems accept, in UTF-8 bytes. */
const MAX_NAME_BYTES = 255;

const fail = (reason: string, extra: Data = {}) =>
  invalidArgument(`上传失败：${reason}`, { field: 'filename', ...extra });

/**
 * The stored name of a client's file name: the base name only (a Windows or POSIX path is cut after its
 * last separator), control characters removed, non-ASCII kept. A name with a `..` segment is refused
 * rather than cut: `../x` is an attempt to leave the directory, not a path to shorten.
 */
export function sanitizeFilename(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '')
    throw fail('缺少文件名：multipart 的文件部分要带 filename，原始字节请加 ?filename=，JSON 请传 filename');
  const segments = raw.split(/[/\\]+/);
  if (segments.some((s) => s.trim() === '..'))
    throw fail(`文件名 ${JSON.stringify(raw)} 含有 ".."：文件只能放在暂存目录里，请只传文件名本身`, {
      traversal: true,
    });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const base = (segments[segments.length - 1] ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  if (base === '' || base === '.' || base === '..')
    throw fail(`文件名 ${JSON.stringify(raw)} 去掉路径和控制字符后为空：请传一个普通的文件名，如 a.jpg`);
  if (Buffer.byteLength(base) > MAX_NAME_BYTES)
    throw fail(`文件名太长（${Buffer.byteLength(base)} 字节，最多 ${MAX_NAME_BYTES}）`);
  return base;
}

/** A path inside the staging directory, or undefined when it would leave it. */
export function insideDir(dir: string, name: string): string | undefined {
  const root = resolve(dir);
  const file = resolve(root, name);
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.includes('/') || rel.includes('\\'))
    return undefined;
  return file;
}

/** Base64 (standard or URL-safe, padding optional, whitespace and a `data:…;base64,` prefix allowed). */
export function decodeBase64(field: string, value: unknown, maxBytes: number): Buffer {
  if (typeof value !== 'string') throw invalidArgument(`上传失败：${field} 必须是 base64 字符串`, { field });
  const body = value.replace(/^data:[^,]*;base64,/i, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(body) || body.length % 4 === 1)
    throw invalidArgument(`上传失败：${field} 不是有效的 base64`, { field, invalidBase64: true });
  if (Math.floor((body.length * 3) / 4) > maxBytes + 2) throw tooLarge(maxBytes, undefined);
  return Buffer.from(body, 'base64');
}

export function tooLarge(maxBytes: number, size: number | undefined) {
  return invalidArgument(
    `上传失败：文件超过上限 ${maxBytes} 字节${size !== undefined ? `（收到 ${size} 字节）` : ''}；上限可用 TABWRIGHT_UPLOAD_MAX_BYTES 调整`,
    { field: 'file', tooLarge: true, maxBytes, size },
  );
}

export interface StagedFile {
  filename: string;
  path: string;
  relativePath: string;
  size: number;
  sha256: string;
  existed: boolean;
  renamedFrom?: string;
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Writes one file into the staging directory: through a temporary file, then renamed (overwrite) or
 * hard-linked under the first free `name-N.ext` (no overwrite), so a reader never sees half a file and a
 * symlink planted under the name is replaced, never followed.
 */
export async function stageFile(cfg: UploadConfig, rawName: unknown, data: Buffer): Promise<StagedFile> {
  const name = sanitizeFilename(rawName);
  if (data.length > cfg.maxBytes) throw tooLarge(cfg.maxBytes, data.length);
  const dir = resolve(cfg.dir);
  const target = insideDir(dir, name);
  if (!target) throw fail(`文件名 ${JSON.stringify(name)} 会落到暂存目录之外`, { traversal: true });
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${randomBytes(8).toString('hex')}.part`);
  await writeFile(tmp, data, { mode: 0o600 });
  const existed = await exists(target);
  let finalName = name;
  try {
    if (cfg.overwrite) await rename(tmp, target);
    else {
      // The first free name of `a.jpg`, `a-1.jpg`, `a-2.jpg`, …; link() fails on an existing name, so two
      // uploads at once never take the same one.
      const ext = extname(name);
      const stem = ext ? name.slice(0, -ext.length) : name;
      for (let n = 0; ; n++) {
        const candidate = n === 0 ? name : `${stem}-${n}${ext}`;
        const file = insideDir(dir, candidate);
        if (!file) throw fail(`文件名 ${JSON.stringify(candidate)} 会落到暂存目录之外`);
        const placed = await link(tmp, file).then(
          () => true,
          (err: NodeJS.ErrnoException) => {
            if (err.code === 'EEXIST' && n < 10_000) return false;
            throw err;
          },
        );
        if (placed) {
          finalName = candidate;
          break;
        }
      }
    }
  } finally {
    await rm(tmp, { force: true });
  }
  const path = join(dir, finalName);
  const staged: StagedFile = {
    filename: finalName,
    path,
    relativePath: finalName,
    size: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    existed,
    renamedFrom: finalName !== name ? name : undefined,
  };
  // Metadata only, never the content (§2.1).
  log.info(
    { filename: staged.filename, size: staged.size, sha256: staged.sha256, path, existed },
    'http door: file staged',
  );
  return staged;
}

export interface StagedEntry {
  filename: string;
  path: string;
  relativePath: string;
  size: number;
  modifiedAt: number;
}

/** Regular files of the staging directory, newest first (temporary `.part` files and other hidden files left out). */
export async function listStaged(cfg: UploadConfig): Promise<StagedEntry[]> {
  const dir = resolve(cfg.dir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: StagedEntry[] = [];
  for (const n of names) {
    if (n.startsWith('.')) continue;
    const s = await lstat(join(dir, n)).catch(() => null);
    if (s?.isFile())
      out.push({ filename: n, path: join(dir, n), relativePath: n, size: s.size, modifiedAt: s.mtimeMs });
  }
  return out.sort((a, b) => b.modifiedAt - a.modifiedAt || a.filename.localeCompare(b.filename));
}

/** Removes one staged file by name; false when there was none. */
export async function removeStaged(
  cfg: UploadConfig,
  rawName: unknown,
): Promise<{ removed: boolean; path: string; filename: string }> {
  if (typeof rawName !== 'string' || rawName === '')
    throw invalidArgument('删除失败：缺少参数 name（DELETE /playwright/upload?name=<文件名>）', {
      field: 'name',
    });
  const name = sanitizeFilename(rawName);
  if (name !== rawName.trim())
    throw invalidArgument(
      `删除失败：name 只能是暂存目录里的文件名，不能带路径（收到 ${JSON.stringify(rawName)}）`,
      {
        field: 'name',
      },
    );
  const file = insideDir(cfg.dir, name);
  if (!file) throw invalidArgument('删除失败：name 会落到暂存目录之外', { field: 'name', traversal: true });
  const s = await lstat(file).catch(() => null);
  if (!s) return { removed: false, path: file, filename: name };
  if (!s.isFile() && !s.isSymbolicLink())
    throw invalidArgument(`删除失败：${name} 不是普通文件`, { field: 'name' });
  await unlink(file);
  log.info({ filename: name, path: file }, 'http door: staged file removed');
  return { removed: true, path: file, filename: name };
}

/**
 * The file an `upload_file` path names: absolute, or relative to the staging directory. A missing file
 * points to `POST /playwright/upload` (the agent may be on another machine).
 */
export async function resolveSourcePath(
  cfg: UploadConfig,
  method: string,
  raw: string,
): Promise<{ path: string; size: number }> {
  if (raw.includes('\0'))
    throw invalidArgument(`${method} 失败：参数 path 无效：包含 NUL 字符`, { field: 'path' });
  const file = isAbsolute(raw) ? resolve(raw) : resolve(cfg.dir, raw);
  if (!isAbsolute(raw)) {
    const rel = relative(resolve(cfg.dir), file);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
      throw invalidArgument(
        `${method} 失败：参数 path 无效：相对路径按暂存目录 ${cfg.dir} 解析，不能离开它（别处的文件请传绝对路径）`,
        { field: 'path' },
      );
  }
  const s = await stat(file).catch(() => null);
  if (!s) {
    throw invalidArgument(
      `${method} 失败：服务器上没有文件 ${file}。文件在你的机器上时，先用 POST /playwright/upload 把它传到服务器（multipart 字段 file，或原始字节加 ?filename=，或 JSON {filename, contentBase64}），再把返回的 path 传给 ${method}；也可以直接传 contentBase64 + filename`,
      {
        field: 'path',
        fileMissing: true,
        path: file,
        uploadEndpoint: 'POST /playwright/upload',
        stagingDir: cfg.dir,
      },
    );
  }
  if (!s.isFile())
    throw invalidArgument(`${method} 失败：${file} 不是普通文件`, { field: 'path', path: file });
  return { path: file, size: s.size };
}
