import { z } from 'zod';
import { ops } from '../../../engine/api.js';
import { invalidArgument } from '../envelope.js';
import { dataUrl, lastNumber, outputPath, taskDir, writeEvidence } from '../evidence.js';
import { type HttpMethod, method, pageOf, sessionOf } from './common.js';
import { FILE_REPLY } from './replies.js';

/** Browser settings (§8.11) and pdf (§8.9), over the engine's emulation operations. */

const OPTS = { timeoutMs: 10_000 };

const setViewport = method({
  name: 'set_viewport',
  summary: '设置视口大小（CSS 像素）',
  ops: [ops.viewport],
  meta: { task: 'existing', evidence: true, reply: { width: '宽', height: '高' } },
  params: z.object({
    width: z.number().int().min(1).max(10_000),
    height: z.number().int().min(1).max(10_000),
  }),
  async run(ctx, p) {
    await ops.viewport.call(pageOf(ctx), { width: p.width, height: p.height }, OPTS);
    return { width: p.width, height: p.height };
  },
});

const setGeolocation = method({
  name: 'set_geolocation',
  summary: '模拟地理位置（同时授予定位权限）',
  ops: [ops.emulate],
  meta: {
    task: 'existing',
    reply: { latitude: '纬度', longitude: '经度', permissionGranted: 'true：已授予定位权限' },
  },
  params: z.object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    accuracy: z.number().min(0).optional(),
  }),
  async run(ctx, p) {
    await ops.emulate.call(sessionOf(ctx), {
      geolocation: { latitude: p.latitude, longitude: p.longitude, accuracy: p.accuracy },
    });
    return { latitude: p.latitude, longitude: p.longitude, permissionGranted: true };
  },
});

const setOffline = method({
  name: 'set_offline',
  summary: '模拟断网（offline:true）或恢复',
  ops: [ops.emulate],
  meta: { task: 'existing', reply: { offline: '现在是否断网' } },
  params: z.object({ offline: z.boolean().optional() }),
  async run(ctx, p) {
    await ops.emulate.call(sessionOf(ctx), { offline: p.offline ?? false });
    return { offline: p.offline ?? false };
  },
});

const setHeaders = method({
  name: 'set_headers',
  summary: '给这个任务的所有请求加上额外的 HTTP 头（headersJson：JSON 字符串）',
  ops: [ops.emulate],
  meta: { task: 'existing', reply: { headers: '设置的头名' } },
  params: z.object({ headersJson: z.string().min(1) }),
  async run(ctx, p) {
    let headers: unknown;
    try {
      headers = JSON.parse(p.headersJson);
    } catch (err) {
      throw invalidArgument(
        `set_headers 失败：参数 headersJson 无效：不是合法 JSON（${(err as Error).message}）`,
        {
          field: 'headersJson',
        },
      );
    }
    if (!headers || typeof headers !== 'object' || Array.isArray(headers)) {
      throw invalidArgument('set_headers 失败：参数 headersJson 无效：必须是 JSON 对象，形如 {"X-Key":"v"}', {
        field: 'headersJson',
      });
    }
    const extraHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
    await ops.emulate.call(sessionOf(ctx), { extra_headers: extraHeaders });
    return { headers: Object.keys(extraHeaders) };
  },
});

const setMedia = method({
  name: 'set_media',
  summary: '模拟配色方案（prefers-color-scheme：light / dark / no-preference）',
  ops: [ops.colorScheme],
  meta: { task: 'existing', evidence: true, reply: { colorScheme: '设置的配色' } },
  params: z.object({ colorScheme: z.enum(['light', 'dark', 'no-preference']) }),
  async run(ctx, p) {
    await ops.colorScheme.call(pageOf(ctx), { scheme: p.colorScheme }, OPTS);
    return { colorScheme: p.colorScheme };
  },
});

/**
 * HTTP basic / digest auth (§8.11). Upstream rebuilds the shared browser; here each task is its own
 * engine session, so the credentials go onto the live context and every tab stays. Scope: the
 * task's allowed origins when it has an allowlist, else any origin that asks (or `origins`, an
 * extension). An empty username clears them. The password is never echoed.
 */
const setCredentials = method({
  name: 'set_credentials',
  summary: 'HTTP 认证（basic / digest）的用户名和密码，只在 401 质询时提供；username 为空则清除',
  ops: [ops.httpCredentials],
  meta: {
    task: 'existing',
    evidence: true,
    reply: {
      username: '用户名（密码从不回显）',
      origins: '凭据提供给哪些源（any：任何发出质询的源）',
      note: '说明',
      cleared: 'username 为空时：已清除',
    },
  },
  params: z.object({
    username: z.string(),
    password: z.string(),
    origins: z.array(z.string().min(1)).min(1).optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    if (p.username === '') {
      await ops.httpCredentials.call(session, { credentials: null });
      return { cleared: true };
    }
    const scope = await ops.httpCredentials.call(session, {
      credentials: { username: p.username, password: p.password, origins: p.origins },
    });
    return {
      username: p.username,
      origins: scope.origins ?? 'any',
      note:
        scope.origins === null
          ? '凭据只在服务器发出 401 认证质询时提供，对任何发出质询的源都有效（这个任务没有源白名单）'
          : '凭据只在服务器发出 401 认证质询时提供，且只提供给 origins 里的源',
    };
  },
});

const pdf = method({
  name: 'pdf',
  summary: '把页面打印成 PDF，存到任务的数据目录（或 path）',
  ops: [ops.pdf],
  meta: { task: 'existing', reply: FILE_REPLY },
  params: z.object({
    path: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(60_000).optional(),
  }),
  async run(ctx, p) {
    const task = ctx.task!;
    const dir = taskDir(ctx.dataDir, task.id);
    const n = (await lastNumber(dir, /^page-(\d+)\.pdf$/)) + 1;
    const file = outputPath('pdf', dir, p.path, () => `page-${n}.pdf`);
    const data = await ops.pdf.call(pageOf(ctx), {}, { timeoutMs: p.timeoutMs ?? 30_000 });
    await writeEvidence(file, data);
    return { path: file, url: dataUrl(ctx.dataDir, file), size: data.length };
  },
});

export const SETTINGS: HttpMethod[] = [
  setViewport,
  setGeolocation,
  setOffline,
  setHeaders,
  setMedia,
  setCredentials,
  pdf,
];
