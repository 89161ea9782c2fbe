import { z } from 'zod';
import { narrowPolicy, ops, profileDir, TabwrightError } from '../../../engine/api.js';
import type { Engine } from '../../../engine/engine.js';
import {
  BROWSER_CHOICES,
  effectiveBrowser,
  engineWarning,
  familyFor,
  normalizeBrowser,
  productFor,
} from '../browser-choice.js';
import { CommandFailure, invalidArgument } from '../envelope.js';
import { lastNumber, SHOT_PATTERN, taskDir } from '../evidence.js';
import type { Task } from '../tasks.js';
import { type HttpMethod, method, originPolicyData, START_TIMEOUT_MS } from './common.js';

const start = method({
  name: 'start',
  summary: '启动一个浏览器任务（不传 id 时分配一个）；可指定 profile、来源白名单和网络记录',
  ops: [ops.startSession, ops.dialogPolicy, ops.sessionInfo, ops.diagnostics],
  meta: {
    task: 'new',
    reply: {
      id: '任务 id（之后每条命令都要带）',
      browser:
        '浏览器：type, chrome, engine, mode, label, version, executable, headless, profile, profileDir, userProfile, profileSeenBefore, userDataDir, profileDirectory, profileNote',
      requestedBrowser: '回显的 browser',
      effectiveBrowser: '实际使用的浏览器（chromium / chrome / edge / firefox）',
      engineHonored: '实际浏览器是否就是请求的那个（没传或 auto 时为 true）',
      engineWarning: '没有按请求启动时的说明（只在 engineHonored:false 时出现）',
      profileNote: 'userDataDir / profileDirectory 没有被采用时的说明',
      profileSeenBefore: 'false：profile 目录是刚创建的（没有任何登录）',
      headlessHonored: '请求的 headless 是否生效',
      headlessNote: '没有生效时的说明',
      sessionId: '引擎会话 id',
      networkRecording: 'on / off / on(按全局配置)',
      originPolicy: '来源白名单：restricted, allowedOrigins, allowedHostPatterns, subresources, source, note',
    },
  },
  params: z.object({
    headless: z.boolean().optional(),
    browser: z.string().optional(),
    profile: z.string().min(1).optional(),
    /** Upstream: the user's own Chrome profile directory (+ its sub-profile); reported, not used. */
    userDataDir: z.string().optional(),
    profileDirectory: z.string().optional(),
    /** Reference §15.1: record this task's requests (default on, the global default). */
    networkRecording: z.boolean().optional(),
    /** Only these origins (scheme://host[:port]); within the server's --allow-origin when it has one. */
    allowedOrigins: z.array(z.string()).max(32).optional(),
    /** Host patterns ("example.com", "*.example.com"), like allowedOrigins. */
    allowedHostPatterns: z.array(z.string()).max(32).optional(),
  }),
  async run(ctx, p) {
    const requested = normalizeBrowser(p.browser);
    if (requested === undefined) {
      throw invalidArgument(
        `start 失败：无法识别的浏览器类型：${p.browser}，可选值：${BROWSER_CHOICES.join(' / ')}`,
        { field: 'browser' },
      );
    }
    const family = familyFor(requested, ctx.engine.browserFamilies);
    // Chrome / Edge run on their own binary when installed (a shared browser of their own); a task
    // on a Selenium Grid node runs on the node's browser.
    const profile = p.profile ?? null;
    const onGrid = profile === null ? ctx.engine.gridUrl : undefined;
    const products =
      (requested === 'chrome' || requested === 'edge') && onGrid === undefined
        ? (await ops.diagnostics.call(ctx.engine, {})).products
        : {};
    const product = productFor(requested, family, products);
    // The server's --allow-origin is a ceiling the task may narrow, never widen (engine rule);
    // checked before anything starts, so a refused allowlist leaves no task behind.
    const asked =
      p.allowedOrigins || p.allowedHostPatterns
        ? { allowed_origins: p.allowedOrigins, allowed_host_patterns: p.allowedHostPatterns }
        : undefined;
    const policy = narrowPolicy(ctx.originCeiling, asked);
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
    // Validates the name before anything is reserved, as the engine does (invalid → invalid_request
    // with field "profile"); whether the profile existed is the engine's to say (session.profileExisted).
    if (profile !== null) profileDir(ctx.engine.home, profile);
    // Reserve the id and take its lock in the same tick as the check above, so two concurrent
    // starts of one id cannot both win; commands sent meanwhile wait for the lock (§6.1).
    const task = ctx.tasks.reserve(id, { profile, headless, shotCounter: 0 });
    void task.lock.acquire(0);
    try {
      task.shotCounter = await lastNumber(taskDir(ctx.dataDir, id), SHOT_PATTERN);
      const session = await ops.startSession.call(
        ctx.engine,
        profile === null
          ? {
              kind: 'ephemeral',
              browser: family,
              product,
              network_recording: p.networkRecording ?? true,
              policy,
            }
          : {
              kind: 'persistent',
              browser: family,
              product,
              profile,
              network_recording: p.networkRecording ?? true,
              policy,
            },
        { timeoutMs: START_TIMEOUT_MS },
      );
      // Reference §8.12: native dialogs are auto-accepted unless set_dialog_behavior says dismiss.
      await ops.dialogPolicy.call(session, { policy: 'accept' });
      task.session = session;
      const profileSeenBefore = session.profileExisted ?? undefined;
      const info = await ops.sessionInfo.call(session, {});
      const effective = effectiveBrowser(info.browser_family, info.browser_label);
      const honored = requested === 'auto' || requested === effective;
      const profileNote = userDirNote(p.userDataDir, p.profileDirectory, profile);
      return {
        id,
        browser: {
          type: effective,
          // Upstream's flag: whether Google Chrome (not Chromium) runs this task.
          chrome: effective === 'chrome',
          engine: info.browser_family,
          mode: 'managed',
          label: info.browser_label,
          version: info.browser_version,
          // Upstream names the binary when it is not the bundled one: here, a Chrome / Edge found.
          executable: product === undefined ? undefined : products[product],
          headless,
          profile,
          profileDir: profile === null ? undefined : profileDir(ctx.engine.home, profile),
          userProfile: profile !== null,
          profileSeenBefore,
          userDataDir: p.userDataDir,
          profileDirectory: p.profileDirectory,
          profileNote,
        },
        requestedBrowser: p.browser,
        effectiveBrowser: effective,
        engineHonored: honored,
        engineWarning:
          requested === 'auto' || honored ? undefined : engineWarning(requested, effective, onGrid),
        profileSeenBefore,
        profileNote,
        headlessHonored: headless === requestedHeadless,
        headlessNote:
          headless !== requestedHeadless
            ? `headless:${requestedHeadless} 没有生效：所有任务沿用服务启动时的浏览器模式（tabwright serve 默认无头，--headed 为有界面）`
            : undefined,
        sessionId: session.id,
        networkRecording:
          p.networkRecording === undefined ? 'on(按全局配置)' : p.networkRecording ? 'on' : 'off',
        originPolicy: {
          ...originPolicyData(session.policy),
          source: asked ? 'start' : ctx.originCeiling ? 'server' : 'none',
          note: session.policy.restricted
            ? undefined
            : '没有来源白名单：这个任务可以访问任何网站（start 传 allowedOrigins，或用 tabwright serve --allow-origin 设上限）',
        },
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
            `start 失败：[ACTION_FAILED] profile ${profile} 正被任务 ${holder.id} 使用：先对 ${holder.id} 调用 close，或换一个 profile`,
            {
              errorCode: 'ACTION_FAILED',
              retryable: false,
              profile,
              heldByTask: holder.id,
              engineMessage: err.message,
            },
          );
        }
      }
      throw err;
    } finally {
      task.lock.release();
    }
  },
});

const close = method({
  name: 'close',
  summary: '关闭这个任务的浏览器（不等任务锁：卡住的任务也能关）',
  ops: [ops.closeSession],
  meta: { task: 'existing-unlocked', reply: { id: '任务 id', closed: 'true' } },
  params: z.object({}),
  async run(ctx) {
    const task = ctx.task!;
    ctx.tasks.remove(task.id);
    await closeTaskSession(ctx.engine, task);
    return { id: task.id, closed: true };
  },
});

const shutdown = method({
  name: 'shutdown',
  summary: '关闭所有任务的浏览器（服务继续运行）',
  ops: [ops.closeSession],
  meta: { task: 'none', reply: { closed: '关闭的任务数', ids: '关闭的任务 id' } },
  params: z.object({}),
  async run(ctx) {
    const all = ctx.tasks.all();
    for (const t of all) ctx.tasks.remove(t.id);
    await Promise.allSettled(all.map((t) => closeTaskSession(ctx.engine, t)));
    return { closed: all.length, ids: all.map((t) => t.id) };
  },
});

export const LIFECYCLE: HttpMethod[] = [start, close, shutdown];

/**
 * Upstream's userDataDir / profileDirectory open the user's own Chrome profile. Tabwright's
 * profiles live under its home (`profile`), so these are reported back, never silently dropped.
 */
function userDirNote(
  userDataDir: string | undefined,
  profileDirectory: string | undefined,
  profile: string | null,
): string | undefined {
  if (userDataDir === undefined && profileDirectory === undefined) return undefined;
  const asked = [
    userDataDir !== undefined ? `userDataDir=${userDataDir}` : '',
    profileDirectory !== undefined ? `profileDirectory=${profileDirectory}` : '',
  ]
    .filter(Boolean)
    .join('、');
  return `没有使用 ${asked}：这个服务不打开本机浏览器自己的用户目录（正在运行的 Chrome 会锁住它，登录数据也不应交给自动化）；${
    profile === null ? '这次是临时 profile（没有任何登录）' : `这次用的是 tabwright profile ${profile}`
  }。要保留登录状态，请传 profile:"<名字>"（保存在 tabwright 的 profiles 目录里），第一次登录后以后都能复用`;
}

export async function closeTaskSession(engine: Engine, task: Task): Promise<void> {
  // Wait for a start that is still creating the session (it holds the lock), then close what it made.
  if (!task.session) {
    await task.lock.acquire(START_TIMEOUT_MS + 1_000);
    task.lock.release();
  }
  const s = task.session;
  if (!s) return;
  try {
    await ops.closeSession.call(engine, { session_id: s.id });
  } catch (err) {
    if (!(err instanceof TabwrightError && err.code === 'session_not_found')) throw err;
  }
}
