import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { OriginPolicy } from '../../../engine/api.js';
import { describeOcr } from '../../../engine/ocr.js';
import type { Data } from '../envelope.js';
import { resolveFilesConfig } from '../files-config.js';
import { listStaged } from '../upload-staging.js';
import { def, type MethodContext, type MethodDef, originPolicyData } from './common.js';

/** Introspection (§8.15) and settings the engine does not have yet. */

/** Filled in by methods.ts (the registry imports this family, so it cannot import the registry). */
export const registry: { names: () => string[] } = { names: () => [] };

const listMethods = def({
  name: 'list_methods',
  task: 'none',
  schema: z.object({ filter: z.string().optional() }),
  async run(_ctx, p) {
    const all = registry.names().sort();
    const f = p.filter?.toLowerCase();
    const methods = f ? all.filter((n) => n.includes(f)) : all;
    return { methods, count: methods.length, total: all.length, filter: p.filter };
  },
});

export function configData(ctx: MethodContext): Data {
  const files = ctx.files ?? resolveFilesConfig(ctx.engine.home);
  return {
    engine: 'chromium',
    configuredType: 'chromium',
    profileDir: join(ctx.engine.home, 'profiles'),
    dataDir: ctx.dataDir,
    jsDir: join(ctx.engine.home, 'scripts', 'js'),
    action: { timeoutMs: 5_000, jsFallback: false, mouseFallback: false },
    tasks: ctx.tasks.all().length,
    commands: { maxBatch: 200, serializeWaitMs: 5_000 },
    capture: { enabled: true, timeoutMs: 8_000 },
    eval: { timeoutMs: 60_000, maxTimeoutMs: 60_000 },
    command: { timeoutMs: null, note: '每个引擎操作自带 ≤60 s 的期限，没有额外的命令级看门狗' },
    network: { record: 'on' },
    json: { skipNull: true },
    upload: {
      dir: files.upload.dir,
      maxBytes: files.upload.maxBytes,
      overwrite: files.upload.overwrite,
      endpoint: 'POST /playwright/upload',
    },
    ocr: describeOcr(files.ocr),
    // The server-wide ceiling (--allow-origin): what a task gets without allowedOrigins, and its limit.
    originPolicy: originPolicyData(OriginPolicy.parse(ctx.originCeiling)),
  };
}

const getConfig = def({
  name: 'get_config',
  task: 'new',
  schema: z.object({}),
  async run(ctx) {
    const data = configData(ctx);
    const task = ctx.id ? ctx.tasks.get(ctx.id) : undefined;
    if (task?.session)
      data.browser = {
        ...task.session.info(),
        headless: task.headless,
        profile: task.profile,
        originPolicy: originPolicyData(task.session.policy),
      };
    return data;
  },
});

export function tasksData(ctx: MethodContext): Data {
  return {
    tasks: ctx.tasks.all().map((t) => {
      let url: string | undefined;
      let title: string | undefined;
      try {
        const info = t.session?.page().info();
        url = info?.url;
        title = info?.title;
      } catch {
        // a task without an open tab
      }
      return {
        id: t.id,
        url,
        title,
        tabCount: t.session?.pages().length ?? 0,
        captureSeq: t.seq ?? 0,
        inflight: t.lock.busy,
        profile: t.profile,
        starting: t.session === undefined ? true : undefined,
      };
    }),
    browser: { type: 'chromium', mode: 'managed' },
  };
}

const listTasks = def({
  name: 'list_tasks',
  task: 'none',
  schema: z.object({}),
  async run(ctx) {
    return tasksData(ctx);
  },
});

const cleanup = def({
  name: 'cleanup',
  task: 'none',
  schema: z.object({
    scope: z.enum(['all', 'data', 'trace', 'upload']).optional(),
    olderThanHours: z.number().min(0).optional(),
    keepLatest: z.number().int().min(0).optional(),
    dryRun: z.boolean().optional(),
  }),
  async run(ctx, p) {
    const scope = p.scope ?? 'all';
    const dryRun = p.dryRun ?? true;
    const cutoff = Date.now() - (p.olderThanHours ?? 24) * 3_600_000;
    const files: { path: string; size: number; mtime: number }[] = [];
    if (scope === 'all' || scope === 'data') {
      const dirs = await readdir(ctx.dataDir).catch(() => [] as string[]);
      for (const d of dirs) {
        const dir = join(ctx.dataDir, d);
        const names = await readdir(dir).catch(() => [] as string[]);
        const entries = [];
        for (const n of names) {
          const s = await stat(join(dir, n)).catch(() => null);
          if (s?.isFile()) entries.push({ path: join(dir, n), size: s.size, mtime: s.mtimeMs });
        }
        entries.sort((a, b) => b.mtime - a.mtime);
        files.push(...entries.slice(p.keepLatest ?? 0).filter((e) => e.mtime < cutoff));
      }
    }
    if (scope === 'upload') {
      // Only on request: `all` never touches staged uploads (§8.15).
      const staged = await listStaged((ctx.files ?? resolveFilesConfig(ctx.engine.home)).upload);
      files.push(
        ...staged
          .slice(p.keepLatest ?? 0)
          .filter((e) => e.modifiedAt < cutoff)
          .map((e) => ({ path: e.path, size: e.size, mtime: e.modifiedAt })),
      );
    }
    if (!dryRun) for (const f of files) await rm(f.path, { force: true });
    return {
      scope,
      dryRun,
      count: files.length,
      bytes: files.reduce((n, f) => n + f.size, 0),
      files: files.slice(0, 200).map((f) => f.path),
      note:
        scope === 'trace'
          ? 'tabwright 不写调用追踪：没有可清理的文件'
          : scope === 'all'
            ? 'all 只清理证据文件，不动上传暂存目录（清理暂存文件请用 scope:"upload"）'
            : undefined,
    };
  },
});

export const META: MethodDef[] = [listMethods, getConfig, listTasks, cleanup];
