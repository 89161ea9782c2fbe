import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { Engine } from '../../engine/engine.js';
import { TabwrightError } from '../../engine/errors.js';
import { profileDir } from '../../engine/home.js';
import type { Session } from '../../engine/session.js';
import { CommandFailure, type Data, invalidArgument } from './envelope.js';
import type { Snowflake } from './snowflake.js';
import type { Task, TaskTable } from './tasks.js';

/** What a handler gets: the engine, the door's state and, for task methods, the task. */
export interface MethodContext {
  method: string;
  engine: Engine;
  tasks: TaskTable;
  snowflake: Snowflake;
  dataDir: string;
  /** The engine's launch mode when the server was told it (HttpServerOptions.engineHeadless). */
  engineHeadless?: boolean;
  /** Normalized envelope id, when one was sent (start) or required. */
  id?: string;
  /** The task for `task: 'existing' | 'existing-unlocked'` methods. */
  task?: Task;
}

/**
 * How a method relates to tasks:
 * - none: no id needed (shutdown);
 * - new: optional id, creates the task (start);
 * - existing: id required, runs under the task's lock (§6.1);
 * - existing-unlocked: id required, never waits for the lock (close, so a wedged task can always be closed).
 */
export type TaskMode = 'none' | 'new' | 'existing' | 'existing-unlocked';

export interface MethodDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  task: TaskMode;
  schema: S;
  /** Fields dropped from `data` with responseMode "compact" (§11). */
  compactDrop?: string[];
  run(ctx: MethodContext, params: z.infer<S>): Promise<Data>;
}

function def<S extends z.ZodObject>(m: MethodDef<S>): MethodDef {
  return m as unknown as MethodDef;
}

/** Budget for launching a browser / creating a context on `start`. */
const START_TIMEOUT_MS = 30_000;
/** Default budget for go_to_url (the engine's own default is 10 s; pages are often slower). */
const NAVIGATION_TIMEOUT_MS = 30_000;
const SCREENSHOT_TIMEOUT_MS = 30_000;
/** The engine refuses budgets above this (Deadline MAX_TIMEOUT_MS). */
const ENGINE_MAX_TIMEOUT_MS = 60_000;
const READ_TIMEOUT_MS = 10_000;

const BROWSERS_OK = new Set(['auto', 'default', 'chromium', 'bundled']);
const BROWSERS_KNOWN = new Set(['chrome', 'google-chrome', 'edge', 'msedge', 'firefox', 'ff', 'gecko']);

function sessionOf(ctx: MethodContext): Session {
  const s = ctx.task?.session;
  if (!s)
    throw new CommandFailure(`${ctx.method} 失败：任务 ${ctx.id} 还没有启动完成`, {
      errorCode: 'ACTION_FAILED',
      retryable: false,
    });
  return s;
}

const start = def({
  name: 'start',
  task: 'new',
  schema: z.object({
    headless: z.boolean().optional(),
    browser: z.string().optional(),
    profile: z.string().min(1).optional(),
  }),
  async run(ctx, p) {
    const requested = p.browser?.trim().toLowerCase() || 'auto';
    if (!BROWSERS_OK.has(requested)) {
      if (!BROWSERS_KNOWN.has(requested)) {
        throw invalidArgument(
          `start 失败：无法识别的浏览器类型：${p.browser}，可选值：auto / chromium / chrome / edge / firefox`,
        );
      }
      throw new CommandFailure(
        `start 失败：[ACTION_FAILED] 这个服务只驱动 Chromium，不支持 browser=${p.browser}（不会悄悄换成别的浏览器）；请去掉 browser 或传 chromium`,
        { errorCode: 'ACTION_FAILED', retryable: false, requestedBrowser: p.browser },
      );
    }
    const id = ctx.id ?? ctx.snowflake.next();
    if (ctx.tasks.has(id)) {
      throw new CommandFailure(
        `start 失败：该 id 已经有正在运行的浏览器实例：${id}，请先调用 close，或换一个 id`,
        {
          errorCode: 'ACTION_FAILED',
          retryable: false,
          id,
        },
      );
    }
    const requestedHeadless = p.headless ?? true;
    // The engine launches every browser in one mode (EngineOptions.headless, default true);
    // per-task headless is not an engine option (yet).
    const headless = ctx.engineHeadless ?? true;
    const profile = p.profile ?? null;
    // Validates the name the same way the engine does (invalid → invalid_request with field "profile").
    const profileSeenBefore = profile === null ? undefined : existsSync(profileDir(ctx.engine.home, profile));
    // Reserve the id and take its lock in the same tick as the check above, so two concurrent
    // starts of one id cannot both win; commands sent meanwhile wait for the lock (§6.1).
    const task = ctx.tasks.reserve(id, { profile, headless, shotCounter: 0 });
    void task.lock.acquire(0);
    try {
      task.shotCounter = await lastShotNumber(taskDir(ctx.dataDir, id));
      const session = await ctx.engine.startSession(
        profile === null ? { kind: 'ephemeral' } : { kind: 'persistent', profile },
        {
          timeoutMs: START_TIMEOUT_MS,
        },
      );
      task.session = session;
      const info = session.info();
      return {
        id,
        browser: {
          type: 'chromium',
          engine: 'chromium',
          mode: 'managed',
          label: info.browser_label,
          version: info.browser_version,
          headless,
          profile,
          userProfile: profile !== null,
          profileSeenBefore,
        },
        requestedBrowser: p.browser,
        effectiveBrowser: 'chromium',
        engineHonored: true,
        profileSeenBefore,
        headlessHonored: headless === requestedHeadless,
        headlessNote:
          headless !== requestedHeadless
            ? `headless:${requestedHeadless} 没有生效：所有任务沿用服务启动时的浏览器模式（tabwright serve 默认无头，--headed 为有界面）`
            : undefined,
        sessionId: session.id,
      };
    } catch (err) {
      ctx.tasks.remove(id);
      // "Profile in use by session X": name the task that holds it, in this door's terms.
      if (
        err instanceof TabwrightError &&
        err.code === 'permission_denied' &&
        err.details.profile !== undefined
      ) {
        const holder = ctx.tasks.all().find((t) => t.session?.id === err.details.session_id);
        if (holder) {
          throw new CommandFailure(
            `start 失败：[ACTION_FAILED] profile ${profile} 正被任务 ${holder.id} 使用：先对 ${holder.id} 调用 close，或换一个 profile（${err.message}）`,
            { errorCode: 'ACTION_FAILED', retryable: false, profile, heldByTask: holder.id },
          );
        }
      }
      throw err;
    } finally {
      task.lock.release();
    }
  },
});

const close = def({
  name: 'close',
  task: 'existing-unlocked',
  schema: z.object({}),
  async run(ctx) {
    const task = ctx.task!;
    ctx.tasks.remove(task.id);
    await closeTaskSession(ctx.engine, task);
    return { id: task.id, closed: true };
  },
});

const shutdown = def({
  name: 'shutdown',
  task: 'none',
  schema: z.object({}),
  async run(ctx) {
    const all = ctx.tasks.all();
    for (const t of all) ctx.tasks.remove(t.id);
    await Promise.allSettled(all.map((t) => closeTaskSession(ctx.engine, t)));
    return { closed: all.length, ids: all.map((t) => t.id) };
  },
});

const goToUrl = def({
  name: 'go_to_url',
  task: 'existing',
  schema: z.object({
    url: z.string().min(1),
    timeoutMs: z.number().int().min(1).max(ENGINE_MAX_TIMEOUT_MS).optional(),
  }),
  compactDrop: ['url', 'title'],
  async run(ctx, p) {
    const page = sessionOf(ctx).page();
    const out = await page.open(p.url, 'load', { timeoutMs: p.timeoutMs ?? NAVIGATION_TIMEOUT_MS });
    return { status: out.status ?? 0, url: out.url, title: out.title };
  },
});

const getUrl = def({
  name: 'get_url',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    return { url: sessionOf(ctx).page().url() };
  },
});

const getTitle = def({
  name: 'get_title',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    return { title: await sessionOf(ctx).page().title({ timeoutMs: READ_TIMEOUT_MS }) };
  },
});

const getTabs = def({
  name: 'get_tabs',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    const session = sessionOf(ctx);
    session.assertAlive();
    const pages = session.pages();
    const tabs = await Promise.all(
      pages.map(async (page, index) => ({
        index,
        url: page.url(),
        // A tab whose title cannot be read right now keeps the last title seen.
        title: await page.title({ timeoutMs: 3_000 }).catch(() => page.info().title),
        current: page.id === session.activePageId,
      })),
    );
    return { tabs };
  },
});

const screenshot = def({
  name: 'screenshot',
  task: 'existing',
  schema: z.object({
    path: z.string().min(1).optional(),
    fullPage: z.boolean().optional(),
    inline: z.boolean().optional(),
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
    force: z.boolean().optional(),
    fallbackToViewport: z.boolean().optional(),
    clipX: z.number().optional(),
    clipY: z.number().optional(),
    clipWidth: z.number().positive().optional(),
    clipHeight: z.number().positive().optional(),
    index: z.unknown().optional(),
    selector: z.unknown().optional(),
  }),
  async run(ctx, p) {
    if (p.index !== undefined || p.selector !== undefined) {
      throw new CommandFailure(
        'screenshot 失败：[ACTION_FAILED] 按元素截图（index / selector）尚未实现：去掉 index / selector 截整个视口，或用 clipX / clipY / clipWidth / clipHeight 截一块区域',
        {
          errorCode: 'ACTION_FAILED',
          retryable: false,
          notImplemented: ['index', 'selector'].filter((k) => k in p),
        },
      );
    }
    const clipKeys = ['clipX', 'clipY', 'clipWidth', 'clipHeight'] as const;
    const clipGiven = clipKeys.filter((k) => p[k] !== undefined);
    if (clipGiven.length > 0 && clipGiven.length < 4) {
      const missing = clipKeys.find((k) => p[k] === undefined)!;
      throw invalidArgument(
        `screenshot 失败：缺少参数 ${missing}（clipX / clipY / clipWidth / clipHeight 四个要一起传）`,
        {
          field: missing,
        },
      );
    }
    const task = ctx.task!;
    const dir = taskDir(ctx.dataDir, task.id);
    const file = outputPath(dir, p.path, () => `shot-${++task.shotCounter}.png`);
    const ext = extname(file).toLowerCase();
    const format = ext === '.jpg' || ext === '.jpeg' ? 'jpeg' : 'png';
    const clip =
      clipGiven.length === 4
        ? { x: p.clipX!, y: p.clipY!, width: p.clipWidth!, height: p.clipHeight! }
        : undefined;
    const timeoutMs = Math.min(p.timeoutMs ?? SCREENSHOT_TIMEOUT_MS, ENGINE_MAX_TIMEOUT_MS);
    const page = sessionOf(ctx).page();
    let warning: string | undefined;
    let shot: Awaited<ReturnType<typeof page.screenshot>>;
    try {
      shot = await page.screenshot({ full_page: p.fullPage ?? false, format, clip }, { timeoutMs });
    } catch (err) {
      if (
        !(
          p.fullPage &&
          p.fallbackToViewport &&
          err instanceof TabwrightError &&
          err.code !== 'browser_not_running'
        )
      ) {
        throw err;
      }
      shot = await page.screenshot({ full_page: false, format, clip }, { timeoutMs });
      warning = `整页截图失败，已按 fallbackToViewport 改截当前视口：${err.message}`;
    }
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, shot.data);
    const inline = p.inline ?? false;
    return {
      path: file,
      url: dataUrl(ctx.dataDir, file),
      size: shot.data.length,
      width: shot.width,
      height: shot.height,
      base64Omitted: !inline,
      base64: inline ? shot.data.toString('base64') : undefined,
      warning,
    };
  },
});

/** Every implemented method, by wire name. */
export const METHODS: ReadonlyMap<string, MethodDef> = new Map(
  [start, close, shutdown, goToUrl, getUrl, getTitle, getTabs, screenshot].map((m) => [m.name, m]),
);

async function closeTaskSession(engine: Engine, task: Task): Promise<void> {
  // Wait for a start that is still creating the session (it holds the lock), then close what it made.
  if (!task.session) {
    await task.lock.acquire(START_TIMEOUT_MS + 1_000);
    task.lock.release();
  }
  const s = task.session;
  if (!s) return;
  try {
    await engine.closeSession(s.id);
  } catch (err) {
    if (!(err instanceof TabwrightError && err.code === 'session_not_found')) throw err;
  }
}

export function taskDir(dataDir: string, id: string): string {
  return join(dataDir, id);
}

/**
 * Where a screenshot goes. No path: `<dataDir>/<id>/shot-N.png`. A relative path
 * stays inside the task directory; an absolute path is used as given (upstream
 * behaviour; the server has no authentication and listens on loopback by default).
 */
function outputPath(dir: string, requested: string | undefined, fallbackName: () => string): string {
  if (requested === undefined) return join(dir, fallbackName());
  if (requested.includes('\0'))
    throw invalidArgument('screenshot 失败：参数 path 无效：包含 NUL 字符', { field: 'path' });
  if (isAbsolute(requested)) return resolve(requested);
  const file = resolve(dir, requested);
  const rel = relative(dir, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw invalidArgument(
      'screenshot 失败：参数 path 无效：相对路径不能离开任务目录（要写到别处请传绝对路径）',
      {
        field: 'path',
      },
    );
  }
  return file;
}

/** The GET-able `/data/...` URL of a file under the data directory, or undefined when it is elsewhere. */
function dataUrl(dataDir: string, file: string): string | undefined {
  const rel = relative(resolve(dataDir), file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return `/data/${rel.split(sep).map(encodeURIComponent).join('/')}`;
}

async function lastShotNumber(dir: string): Promise<number> {
  try {
    let max = 0;
    for (const name of await readdir(dir)) {
      const m = /^shot-(\d+)\.png$/.exec(name);
      if (m) max = Math.max(max, Number(m[1]));
    }
    return max;
  } catch {
    return 0;
  }
}
