import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { describeOcr, OriginPolicy, ops, toJsonSchema } from '../../../engine/api.js';
import { BROWSER_CHOICES } from '../browser-choice.js';
import { type Data, invalidArgument } from '../envelope.js';
import { resolveFilesConfig } from '../files-config.js';
import { suggestMethods } from '../suggest.js';
import { listStaged } from '../upload-staging.js';
import {
  type HttpMethod,
  type HttpTable,
  type MethodContext,
  method,
  originPolicyData,
  type TaskMode,
} from './common.js';
import { EVIDENCE_REPLY } from './replies.js';

/** Introspection (§8.15), generated from the method table, and settings the engine does not have yet. */

/** What list_methods lists: the command table; `commands` is the batch entry, outside the table (§8). */
export function listedMethods(table: HttpTable): HttpMethod[] {
  return table
    .list()
    .filter((m) => m.name !== 'commands')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const listMethods = method({
  name: 'list_methods',
  summary: '列出所有方法名，每个方法附一行说明（filter：名称子串）',
  meta: {
    task: 'none',
    reply: {
      methods: '方法名（按字母排序）',
      descriptions: '每个方法的一行说明：{方法名: 说明}',
      count: '返回的方法数',
      total: '方法总数',
      filter: '回显的 filter',
    },
  },
  params: z.object({ filter: z.string().optional() }),
  async run(ctx, p) {
    const all = listedMethods(ctx.table);
    const f = p.filter?.toLowerCase();
    const shown = f ? all.filter((m) => m.name.includes(f)) : all;
    return {
      methods: shown.map((m) => m.name),
      descriptions: Object.fromEntries(shown.map((m) => [m.name, m.summary])),
      count: shown.length,
      total: all.length,
      filter: p.filter,
    };
  },
});

/** Whether a method needs the envelope id (§3). */
const ID_RULE: Record<TaskMode, string> = {
  none: 'none',
  new: 'optional',
  existing: 'required',
  'existing-unlocked': 'required',
};

/** One method's description (describe_method): from its row, its schema and its operations. */
export function describeMethod(m: HttpMethod): Data {
  return {
    name: m.name,
    summary: m.summary,
    effect: m.effect,
    id: ID_RULE[m.meta.task],
    lock: m.meta.task === 'existing',
    pageChanging: m.meta.evidence === true,
    receipt: m.meta.receipt === true || undefined,
    operations: m.ops.map((o) => o.name),
    params: toJsonSchema(m.params),
    reply: m.meta.evidence ? { ...m.meta.reply, ...EVIDENCE_REPLY } : m.meta.reply,
    compactDrops: m.meta.compactDrop?.length ? [...m.meta.compactDrop] : undefined,
  };
}

const describeMethodRow = method({
  name: 'describe_method',
  summary: '一个方法的说明：参数（JSON Schema）、返回字段、是否需要 id、是否自动截图、用到的引擎操作',
  meta: {
    task: 'none',
    reply: {
      name: '方法名',
      summary: '一行说明',
      effect: '影响：read / wait / navigate / act / session / configure / raw',
      id: 'none（不需要 id）/ optional / required',
      lock: '是否在任务锁下执行',
      pageChanging: '成功后是否自动截图（§7.1）',
      receipt: '返回点击回执（compact 模式去掉诊断字段）',
      operations: '用到的引擎操作',
      params: '参数的 JSON Schema',
      reply: '返回字段：{字段: 说明}',
      compactDrops: 'compact 模式去掉的字段',
    },
  },
  params: z.object({ name: z.string().min(1) }),
  async run(ctx, p) {
    const name = p.name.trim();
    const m = ctx.table.get(name);
    if (!m) {
      const suggestions = suggestMethods(name, ctx.table.names());
      const hint = suggestions.length > 0 ? `，你是不是想用 ${suggestions.join(' / ')}？` : '';
      throw invalidArgument(`describe_method 失败：参数 name 无效：不支持的方法：${name}${hint}`, {
        field: 'name',
        suggestions,
      });
    }
    return describeMethod(m);
  },
});

export function configData(ctx: MethodContext): Data {
  const files = ctx.files ?? resolveFilesConfig(ctx.engine.home);
  return {
    engine: ctx.engine.browserFamilies[0] ?? 'chromium',
    configuredType: ctx.engine.browserFamilies[0] ?? 'chromium',
    /** The browser families `start {browser}` can honour (the default first). */
    browsers: ctx.engine.browserFamilies,
    // Upstream's shape: where profiles are configured to live and where they resolve to.
    profileDir: {
      configured: join(ctx.engine.home, 'profiles'),
      resolved: join(ctx.engine.home, 'profiles'),
      source: 'managed',
      note: 'start 传 profile:"<名字>" 时用 <resolved>/<名字>；不传是临时 profile',
    },
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

const getConfig = method({
  name: 'get_config',
  summary: '服务的有效设置（目录、期限、上传、OCR、来源白名单）；带 id 时加上这个任务的浏览器',
  ops: [ops.sessionInfo, ops.diagnostics],
  meta: {
    task: 'new',
    reply: {
      engine: '默认的浏览器引擎（chromium）',
      configuredType: '同 engine',
      browsers: 'start 的 browser 能真正使用的引擎（如 chromium, firefox）',
      typeChoices: 'start 的 browser 可选值',
      installedBrowsers: '本机找到的 Chrome / Edge（按路径）：start 传 chrome / edge 时用它们',
      profileDir: 'profile 目录：configured, resolved, source, note',
      dataDir: '证据文件目录',
      jsDir: 'execute_js 的 bodyFile 目录',
      action: '动作设置',
      tasks: '任务数',
      commands: '批量设置：maxBatch, serializeWaitMs',
      capture: '自动截图设置',
      eval: '脚本期限',
      command: '命令期限',
      network: '网络记录',
      json: 'skipNull',
      upload: '上传暂存设置',
      ocr: 'OCR 设置',
      originPolicy: '服务的来源白名单上限',
      browser: '带 id 时：这个任务的浏览器',
    },
  },
  params: z.object({}),
  async run(ctx) {
    const data = configData(ctx);
    data.typeChoices = BROWSER_CHOICES;
    data.installedBrowsers = (await ops.diagnostics.call(ctx.engine, {})).products;
    const task = ctx.id ? ctx.tasks.get(ctx.id) : undefined;
    if (task?.session)
      data.browser = {
        ...(await ops.sessionInfo.call(task.session, {})),
        headless: task.headless,
        profile: task.profile,
        originPolicy: originPolicyData(task.session.policy),
      };
    return data;
  },
});

export async function tasksData(ctx: MethodContext): Promise<Data> {
  const tasks = ctx.tasks.all().map(async (t) => {
    let url: string | undefined;
    let title: string | undefined;
    try {
      const page = t.session?.page();
      const info = page ? await ops.info.call(page, {}) : undefined;
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
  });
  return { tasks: await Promise.all(tasks), browser: { type: 'chromium', mode: 'managed' } };
}

const listTasks = method({
  name: 'list_tasks',
  summary: '正在运行的任务：URL、标题、标签页数、证据序号、是否有命令在执行',
  ops: [ops.info],
  meta: {
    task: 'none',
    reply: {
      tasks: '任务：id, url, title, tabCount, captureSeq, inflight, profile, starting',
      browser: '浏览器：type, mode',
    },
  },
  params: z.object({}),
  run: (ctx) => tasksData(ctx),
});

const cleanup = method({
  name: 'cleanup',
  summary: '清理旧的证据文件（默认只演练 dryRun:true；scope:"upload" 清理上传暂存）',
  // Deletes files (with dryRun:false).
  effect: 'act',
  meta: {
    task: 'none',
    reply: {
      scope: '清理范围',
      dryRun: 'true：只列出，不删除',
      count: '文件数',
      bytes: '字节数',
      files: '文件路径（最多 200 个）',
      note: '说明',
    },
  },
  params: z.object({
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

export const META: HttpMethod[] = [listMethods, describeMethodRow, getConfig, listTasks, cleanup];
