import { createReadStream } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Fastify, { type FastifyError, type FastifyReply } from 'fastify';
import { log, OriginPolicy, ops } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import type { MountedRoutes } from '../kit/index.js';
import { registerDashboard } from './dashboard/index.js';
import { type DoorBase, type DoorState, dispatch, envelopeFailure, SERIALIZE_WAIT_MS } from './dispatch.js';
import { CommandFailure, failure, invalidArgument, type Reply } from './envelope.js';
import { type FilesOptions, resolveFilesConfig } from './files-config.js';
import { LAZY_SCHEMA_COMPILERS } from './lazy-compilers.js';
import { BODY_LIMIT, checkBindPolicy, requestGuard } from './security.js';
import { Snowflake } from './snowflake.js';
import { resolveDataFile } from './static-files.js';
import { TaskTable } from './tasks.js';
import { registerUploadRoutes } from './upload-routes.js';

export interface HttpServerOptions {
  /** Default 127.0.0.1 (the API has no authentication). */
  host?: string;
  /** Default 10049; 0 picks a free port. */
  port?: number;
  /** Evidence files (screenshots); default `<engine home>/data`. Served under GET /data/. */
  dataDir?: string;
  /** Omit null fields in replies (default true); false gives the legacy shape with `error`/`msg` null. */
  skipNull?: boolean;
  /** How long a command waits for the previous command of its task; default 5000 ms (reference §6.1). */
  serializeWaitMs?: number;
  /**
   * The headless mode the engine was created with (EngineOptions.headless), so `start` can report
   * what a task really gets; unknown when omitted.
   */
  engineHeadless?: boolean;
  /**
   * Bearer token. Required for any bind address other than loopback (the server refuses to start
   * without one); when set, every request must send `Authorization: Bearer <token>`.
   */
  token?: string;
  /** Extra Host header names accepted besides loopback names and the bind address (e.g. a DNS name). */
  allowedHosts?: string[];
  /** File staging, upload_file, download_image and ocr_image settings (files-config.ts). */
  files?: FilesOptions;
  /**
   * Server-wide origin allowlist (`--allow-origin`): tasks started without `allowedOrigins` get it,
   * tasks that pass one may only narrow it (so do the sessions of doors mounted here, e.g. `/mcp`).
   */
  allowedOrigins?: string[];
  /**
   * Other doors' routes on this server (the composition root's choice: `tabwright serve` mounts
   * MCP at /mcp). They come after the request guard, so they get the same access rules; a refusal
   * on their path is rendered by them.
   */
  mounts?: MountedRoutes[];
}

export interface HttpServer {
  /** e.g. http://127.0.0.1:10049 */
  url: string;
  port: number;
  /** Stops listening and closes the sessions of this server's tasks (the engine itself stays up). */
  close(): Promise<void>;
}

export const DEFAULT_PORT = 10049;

/**
 * The HTTP command door (`tabwright serve`): a wire-compatible subset of the
 * deepseek-browser-use HTTP command API mapped onto the engine. See
 * docs/http-door.md for the exact wire format.
 */
export async function startHttpServer(engine: Engine, opts: HttpServerOptions = {}): Promise<HttpServer> {
  const host = opts.host ?? '127.0.0.1';
  checkBindPolicy(host, opts.token);
  const guard = requestGuard(host, opts.token, opts.allowedHosts);
  // Validated here, so a bad --allow-origin stops the server with the reason instead of failing every start.
  const originCeiling = opts.allowedOrigins?.length
    ? OriginPolicy.parse({ allowed_origins: opts.allowedOrigins }).toJSON()
    : undefined;
  const state: DoorBase = {
    engine,
    tasks: new TaskTable(),
    snowflake: new Snowflake(),
    dataDir: opts.dataDir ?? join(engine.home, 'data'),
    startedAt: new Date(),
    skipNull: opts.skipNull ?? true,
    serializeWaitMs: opts.serializeWaitMs ?? SERIALIZE_WAIT_MS,
    engineHeadless: opts.engineHeadless,
    files: resolveFilesConfig(engine.home, opts.files),
    originCeiling,
  };
  // The method table (about 2 MB of zod schemas) loads with the first command, so a server used only
  // through a mounted door (`/mcp`) never holds it (docs/ARCHITECTURE.md, a lean Node side).
  let loading: Promise<DoorState> | undefined;
  const commands = () =>
    (loading ??= import('./methods.js').then((m) => ({ ...state, table: m.HTTP_TABLE })));

  // Fastify's own logger stays off: stdout belongs to the CLI; our logs go to stderr via pino.
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    schemaController: { compilersFactory: LAZY_SCHEMA_COMPILERS },
  });

  // Bodies are parsed by the dispatcher (so a bad body gets the protocol's literal message), whatever the content type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  // Host / Origin / Sec-Fetch-Site / token / content-type checks before anything else, on every route
  // (see security.ts); no CORS headers are ever sent. A mounted door's path (/mcp) refuses in its
  // own format, the rest in envelopes.
  const mounts = opts.mounts ?? [];
  app.addHook('onRequest', async (req, res) => {
    const path = (req.raw.url ?? '/').split('?')[0]!;
    const refused = guard.check({ method: req.method, path, headers: req.headers });
    if (!refused) return;
    log.warn(
      {
        method: req.method,
        path,
        host: req.headers.host,
        origin: req.headers.origin,
        fetchSite: req.headers['sec-fetch-site'],
        reason: refused.reason,
        status: refused.status,
      },
      'http door: request refused',
    );
    const mounted = mounts.find((m) => m.path === path);
    const { msg: _msg, ...why } = refused;
    const body = mounted
      ? mounted.refusal(why)
      : {
          data: {
            refused: true,
            reason: refused.reason,
            errorCode: 'ACTION_FAILED',
            retryable: false,
            expectedOrigin: refused.reason === 'origin' ? refused.origin : undefined,
          },
          code: 0,
          ok: false,
          msg: refused.msg,
        };
    return res
      .code(refused.status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(body));
  });

  const send = (res: FastifyReply, reply: Reply) =>
    res
      .code(reply.status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(reply.body));

  app.get('/playwright/health', async (_req, res) =>
    send(res, { status: 200, body: { data: { name: 'tabwright' }, code: 1, ok: true } }),
  );

  app.post('/playwright/command', async (req, res) =>
    send(res, await dispatch(typeof req.body === 'string' ? req.body : undefined, await commands())),
  );

  app.get('/playwright/command', async (_req, res) => {
    res.header('allow', 'POST');
    // Upstream's handler answers a non-POST with HTTP 200 and a failed envelope.
    return send(
      res,
      failure(
        envelopeFailure(
          '浏览器控制接口只支持 POST：请把 {"id","method","params"} 放在 JSON 请求体里发到 POST /playwright/command，参数不走查询字符串',
        ),
        state,
      ),
    );
  });

  // GET mirrors of list_methods / get_config / list_tasks (§2), through the same dispatcher.
  const mirror = (method: string) => async (_req: unknown, res: FastifyReply) =>
    send(res, await dispatch(JSON.stringify({ method }), await commands()));
  app.get('/playwright/methods', mirror('list_methods'));
  app.get('/playwright/config', mirror('get_config'));
  app.get('/playwright/tasks', mirror('list_tasks'));

  app.get('/data/*', async (req, res) => {
    const rawRest = req.raw.url?.slice('/data/'.length) ?? '';
    const found = await resolveDataFile(state.dataDir, rawRest);
    if (!found.ok) {
      const msg = found.status === 403 ? '拒绝访问：非法的文件路径' : '文件不存在';
      return send(res, withStatus(failure(new CommandFailure(msg, {}), state), found.status));
    }
    res
      .code(200)
      .header('content-type', found.contentType)
      .header('content-length', String(found.size))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff');
    return res.send(createReadStream(found.file));
  });

  app.setNotFoundHandler(async (req, res) =>
    send(
      res,
      withStatus(
        failure(new CommandFailure(`没有这个接口：${req.method} ${req.url.split('?')[0]}`, {}), state),
        404,
      ),
    ),
  );

  // Nothing reaches a client as HTTP 500: framework errors (body too large, bad encoding, …) become envelopes.
  app.setErrorHandler(async (err: FastifyError, _req, res) => {
    const status = typeof err.statusCode === 'number' ? err.statusCode : 0;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
      return send(
        res,
        failure(
          invalidArgument(`请求体超过 8 MiB 上限（${BODY_LIMIT} 字节）：请缩小请求，大批量命令请分多次发送`, {
            bodyTooLarge: true,
            maxBytes: BODY_LIMIT,
          }),
          state,
        ),
      );
    }
    if (status >= 400 && status < 500) {
      return send(res, failure(invalidArgument(`请求无效：${err.message}`), state));
    }
    log.error({ err }, 'http door: unexpected error');
    return send(
      res,
      failure(
        new CommandFailure(`服务内部错误：${err.message}`, { errorCode: 'ACTION_FAILED', retryable: false }),
        state,
      ),
    );
  });

  registerUploadRoutes(app, state.files.upload, state); // POST/GET/DELETE /playwright/upload (§2.1)
  for (const m of mounts) m.register(app); // other doors' routes (tabwright serve: MCP at /mcp)
  registerDashboard(app, state); // the person's dashboard at GET / (src/doors/http/dashboard/)

  await app.listen({ host, port: opts.port ?? DEFAULT_PORT });
  const port = (app.server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `http://${shownHost}:${port}`;
  log.info({ url, dataDir: state.dataDir }, 'http door listening');

  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closed ??= (async () => {
        await app.close();
        const tasks = state.tasks.all();
        for (const t of tasks) state.tasks.remove(t.id);
        await Promise.allSettled(
          tasks.map((t) =>
            t.session ? ops.closeSession.call(engine, { session_id: t.session.id }) : Promise.resolve(),
          ),
        );
      })();
      return closed;
    },
  };
}

function withStatus(reply: Reply, status: number): Reply {
  return { ...reply, status };
}
