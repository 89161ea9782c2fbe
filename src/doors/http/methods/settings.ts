import { z } from 'zod';
import { emulateSession, printPdf, setColorScheme, setViewport } from '../../../engine/emulation.js';
import { invalidArgument } from '../envelope.js';
import { dataUrl, lastNumber, outputPath, taskDir, writeEvidence } from '../evidence.js';
import { def, type MethodDef, pageOf, sessionOf } from './common.js';

/** Browser settings (§8.11) and pdf (§8.9), over src/engine/emulation.ts. */

const OPTS = { timeoutMs: 10_000 };

const setViewportDef = def({
  name: 'set_viewport',
  task: 'existing',
  schema: z.object({
    width: z.number().int().min(1).max(10_000),
    height: z.number().int().min(1).max(10_000),
  }),
  async run(ctx, p) {
    await setViewport(pageOf(ctx), { width: p.width, height: p.height }, OPTS);
    return { width: p.width, height: p.height };
  },
});

const setGeolocation = def({
  name: 'set_geolocation',
  task: 'existing',
  schema: z.object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    accuracy: z.number().min(0).optional(),
  }),
  async run(ctx, p) {
    await emulateSession(sessionOf(ctx), {
      geolocation: { latitude: p.latitude, longitude: p.longitude, accuracy: p.accuracy },
    });
    return { latitude: p.latitude, longitude: p.longitude, permissionGranted: true };
  },
});

const setOffline = def({
  name: 'set_offline',
  task: 'existing',
  schema: z.object({ offline: z.boolean().optional() }),
  async run(ctx, p) {
    await emulateSession(sessionOf(ctx), { offline: p.offline ?? false });
    return { offline: p.offline ?? false };
  },
});

const setHeaders = def({
  name: 'set_headers',
  task: 'existing',
  schema: z.object({ headersJson: z.string().min(1) }),
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
    await emulateSession(sessionOf(ctx), { extraHeaders });
    return { headers: Object.keys(extraHeaders) };
  },
});

const setMedia = def({
  name: 'set_media',
  task: 'existing',
  schema: z.object({ colorScheme: z.enum(['light', 'dark', 'no-preference']) }),
  async run(ctx, p) {
    await setColorScheme(pageOf(ctx), p.colorScheme, OPTS);
    return { colorScheme: p.colorScheme };
  },
});

/**
 * HTTP basic / digest auth (§8.11). Upstream rebuilds the shared browser; here each task is its own
 * engine session, so the credentials go onto the live context and every tab stays. Scope: the
 * task's allowed origins when it has an allowlist, else any origin that asks (or `origins`, an
 * extension). An empty username clears them. The password is never echoed.
 */
const setCredentials = def({
  name: 'set_credentials',
  task: 'existing',
  schema: z.object({
    username: z.string(),
    password: z.string(),
    origins: z.array(z.string().min(1)).min(1).optional(),
  }),
  async run(ctx, p) {
    const session = sessionOf(ctx);
    if (p.username === '') {
      await session.setHttpCredentials(null);
      return { cleared: true };
    }
    const scope = await session.setHttpCredentials({
      username: p.username,
      password: p.password,
      origins: p.origins,
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

const pdf = def({
  name: 'pdf',
  task: 'existing',
  schema: z.object({
    path: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(60_000).optional(),
  }),
  async run(ctx, p) {
    const task = ctx.task!;
    const dir = taskDir(ctx.dataDir, task.id);
    const n = (await lastNumber(dir, /^page-(\d+)\.pdf$/)) + 1;
    const file = outputPath('pdf', dir, p.path, () => `page-${n}.pdf`);
    const data = await printPdf(pageOf(ctx), { timeoutMs: p.timeoutMs ?? 30_000 });
    await writeEvidence(file, data);
    return { path: file, url: dataUrl(ctx.dataDir, file), size: data.length };
  },
});

export const SETTINGS: MethodDef[] = [
  setViewportDef,
  setGeolocation,
  setOffline,
  setHeaders,
  setMedia,
  setCredentials,
  pdf,
];
