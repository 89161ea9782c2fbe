import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { log, NAMED_KEYS, ops, scrubEverywhere, startLiveView } from '../../../engine/api.js';
import type { LiveInput } from '../../../engine/held-input.js';
import type { HumanInputEvent } from '../../../engine/human-input.js';
import type { Page } from '../../../engine/page.js';
import { PACKAGE_ROOT } from '../../../package-root.js';
import type { DoorBase } from '../dispatch.js';
import { humanData } from '../methods/human.js';
import type { Task } from '../tasks.js';

/**
 * The dashboard at `GET /`: a page for the person helping the agent. It lists
 * the running tasks (URL, latest screenshot, bring-to-front for headed tasks,
 * a live view for headless ones) and the human-input requests of the engine
 * (prompt, image, steps, a form to answer or to mark done), updated live over
 * Server-Sent Events. It goes through the server's request guard like the API
 * (same Host / Origin / Sec-Fetch-Site / token rules; every POST must be
 * application/json, which app.js sends, so another web page cannot post here
 * without a CORS preflight). Plain ES modules and CSS, no CDN.
 *
 * Routes (all under the guard):
 *   GET  /                                   the page
 *   GET  /dashboard/assets/<file>            app.js, style.css
 *   GET  /dashboard/api/state                tasks + requests (JSON)
 *   GET  /dashboard/api/events               SSE: "request" (a record changed), "tasks" (list changed)
 *   POST /dashboard/api/answer               {requestId, answer | stepId+answer | answers | done}
 *   GET  /dashboard/api/tasks/:id/screenshot a fresh JPEG of the task's tab (cached ~1 s)
 *   POST /dashboard/api/tasks/:id/front      bring the task's tab to front (headed tasks)
 *   GET  /dashboard/api/tasks/:id/screencast SSE "frame" events: {data (base64 JPEG), width, height}
 *   POST /dashboard/api/tasks/:id/input      {type:"click",x,y} | {type:"text",text} | {type:"key",key}
 */

const ASSETS: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** The assets folder: in src/, which the build (dist/, dist/bundle/) reads them from too. */
function assetsDir(): string {
  return join(PACKAGE_ROOT, 'src/doors/http/dashboard/assets');
}

const MAX_BODY_TEXT = 10_000;
const KEYS = new Set(NAMED_KEYS);

export function registerDashboard(app: FastifyInstance, state: DoorBase): void {
  const dir = assetsDir();
  const streams = new Set<ServerResponse>();
  const stops = new Set<() => Promise<void>>();
  const shots = new Map<string, { at: number; data: Buffer }>();

  const json = (res: FastifyReply, status: number, body: unknown) =>
    res
      .code(status)
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(scrubEverywhere(JSON.stringify(body)));

  const serveAsset = async (name: string, res: FastifyReply) => {
    const type = ASSETS[name];
    if (!type) return json(res, 404, { ok: false, msg: 'not found' });
    const body = await readFile(join(dir, name));
    return res
      .code(200)
      .header('content-type', type)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header(
        'content-security-policy',
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
      )
      .header('x-frame-options', 'DENY')
      .send(body);
  };

  app.get('/', async (_req, res) => serveAsset('index.html', res));
  app.get('/dashboard', async (_req, res) => serveAsset('index.html', res));
  app.get<{ Params: { file: string } }>('/dashboard/assets/:file', async (req, res) =>
    serveAsset(req.params.file, res),
  );

  const taskPage = (t: Task): Page | undefined => {
    try {
      return t.session?.page();
    } catch {
      return undefined;
    }
  };

  const taskData = async (t: Task) => {
    const page = taskPage(t);
    const info = page ? await ops.info.call(page, {}).catch(() => undefined) : undefined;
    return {
      id: t.id,
      url: info?.url ?? null,
      title: info?.title ?? null,
      headless: t.headless,
      busy: t.lock.busy,
      ready: t.session !== undefined,
      startedAt: t.startedAt,
    };
  };

  const tasksData = () => Promise.all(state.tasks.all().map(taskData));
  const snapshot = async () => ({
    tasks: await tasksData(),
    requests: (await ops.humanRecords.call(state.engine, {})).map((r) => humanData(r)),
    now: Date.now(),
  });

  app.get('/dashboard/api/state', async (_req, res) => json(res, 200, await snapshot()));

  const sse = (res: FastifyReply): ServerResponse => {
    res.hijack();
    const raw = res.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write('retry: 1000\n\n');
    streams.add(raw);
    raw.on('close', () => streams.delete(raw));
    return raw;
  };
  // Live view data goes through the secret rule (secret values of every session, URL parameters);
  // screencast frames are pictures: nothing in them can be scrubbed.
  const send = (raw: ServerResponse, event: string, data: unknown) => {
    const text = event === 'frame' ? JSON.stringify(data) : scrubEverywhere(JSON.stringify(data));
    if (!raw.writableEnded) raw.write(`event: ${event}\ndata: ${text}\n\n`);
  };

  app.get('/dashboard/api/events', async (_req, res) => {
    const raw = sse(res);
    send(raw, 'state', await snapshot());
    const off = state.engine.humanInput.subscribe((e: HumanInputEvent) =>
      send(raw, 'request', { type: e.type, request: humanData(e.record) }),
    );
    // Task URLs and the task list change without events of their own: a light poll, sent only on change.
    let last = '';
    const tick = setInterval(async () => {
      const tasks = await tasksData();
      const s = JSON.stringify(tasks);
      if (s !== last) {
        last = s;
        send(raw, 'tasks', tasks);
      } else if (!raw.writableEnded) {
        raw.write(': keep-alive\n\n');
      }
    }, 1000);
    raw.on('close', () => {
      off();
      clearInterval(tick);
    });
  });

  app.post('/dashboard/api/answer', async (req, res) => {
    const body = parseJson(req.body);
    if (!body || typeof body.requestId !== 'string') {
      return json(res, 400, { ok: false, msg: '缺少参数 requestId' });
    }
    try {
      const rec = await ops.answerHuman.call(state.engine, {
        id: body.requestId,
        submission: {
          answer: body.answer as string | string[] | undefined,
          step_id: typeof body.stepId === 'string' ? body.stepId : undefined,
          answers: body.answers as Record<string, string | string[]> | undefined,
          done: body.done === true,
        },
      });
      log.info({ requestId: rec.id, status: rec.status }, 'dashboard: human input submitted');
      return json(res, 200, { ok: true, data: humanData(rec) });
    } catch (err) {
      return json(res, 400, { ok: false, msg: err instanceof Error ? err.message : String(err) });
    }
  });

  const withTask = (id: string, res: FastifyReply): { task: Task; page: Page } | undefined => {
    const task = state.tasks.get(id);
    const page = task ? taskPage(task) : undefined;
    if (!task || !page) {
      void json(res, 404, { ok: false, msg: `没有这个任务：${id}` });
      return undefined;
    }
    return { task, page };
  };

  app.get<{ Params: { id: string } }>('/dashboard/api/tasks/:id/screenshot', async (req, res) => {
    const t = withTask(req.params.id, res);
    if (!t) return res;
    const key = `${t.task.id}/${t.page.id}`;
    let shot = shots.get(key);
    if (!shot || Date.now() - shot.at > 1000) {
      try {
        const s = await ops.screenshot.call(t.page, { format: 'jpeg', quality: 60 }, { timeoutMs: 5_000 });
        shot = { at: Date.now(), data: s.data };
        shots.set(key, shot);
      } catch (err) {
        return json(res, 503, { ok: false, msg: err instanceof Error ? err.message : String(err) });
      }
    }
    return res
      .code(200)
      .header('content-type', 'image/jpeg')
      .header('cache-control', 'no-store')
      .send(shot.data);
  });

  app.post<{ Params: { id: string } }>('/dashboard/api/tasks/:id/front', async (req, res) => {
    const t = withTask(req.params.id, res);
    if (!t) return res;
    try {
      await ops.bringToFront.call(t.page, {}, { timeoutMs: 5_000 });
      return json(res, 200, { ok: true, headless: t.task.headless });
    } catch (err) {
      return json(res, 500, { ok: false, msg: err instanceof Error ? err.message : String(err) });
    }
  });

  app.get<{ Params: { id: string } }>('/dashboard/api/tasks/:id/screencast', async (req, res) => {
    const t = withTask(req.params.id, res);
    if (!t) return res;
    const raw = sse(res);
    let stop: (() => Promise<void>) | undefined;
    let closed = false;
    raw.on('close', () => {
      closed = true;
      if (stop) {
        stops.delete(stop);
        void stop();
      }
    });
    try {
      const s = await startLiveView(t.page, { quality: 60, maxWidth: 1280, maxHeight: 1024 }, (f) =>
        send(raw, 'frame', { data: f.data.toString('base64'), width: f.width, height: f.height, at: f.at }),
      );
      if (closed) await s();
      else {
        stop = s;
        stops.add(s);
      }
    } catch (err) {
      send(raw, 'failed', { msg: err instanceof Error ? err.message : String(err) });
      raw.end();
    }
    return res;
  });

  app.post<{ Params: { id: string } }>('/dashboard/api/tasks/:id/input', async (req, res) => {
    const t = withTask(req.params.id, res);
    if (!t) return res;
    const b = parseJson(req.body);
    let ev: LiveInput;
    if (b?.type === 'click' && Number.isFinite(b.x) && Number.isFinite(b.y)) {
      ev = { type: 'click', x: Number(b.x), y: Number(b.y) };
    } else if (b?.type === 'text' && typeof b.text === 'string' && b.text.length <= MAX_BODY_TEXT) {
      ev = { type: 'text', text: b.text };
    } else if (b?.type === 'key' && typeof b.key === 'string' && KEYS.has(b.key)) {
      ev = { type: 'key', key: b.key === 'Space' ? ' ' : b.key };
    } else {
      return json(res, 400, {
        ok: false,
        msg: '输入无效：{type:"click",x,y} | {type:"text",text} | {type:"key",key}',
      });
    }
    try {
      await ops.personInput.call(t.page, ev, { timeoutMs: 10_000 });
      return json(res, 200, { ok: true });
    } catch (err) {
      return json(res, 500, { ok: false, msg: err instanceof Error ? err.message : String(err) });
    }
  });

  // Open event streams and screencasts would keep the server from closing.
  app.addHook('preClose', async () => {
    for (const s of stops) await s().catch(() => {});
    stops.clear();
    for (const raw of streams) raw.end();
    streams.clear();
  });
}

function parseJson(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const v = JSON.parse(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
