import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after } from 'node:test';
import { startServer } from '../../src/cli/serve.js';
import type { HttpServer, HttpServerOptions } from '../../src/doors/http/server.js';
import type { Engine, EngineSettings } from '../../src/index.js';
import { newEngine, tempHome } from './engine.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';

// biome-ignore lint/suspicious/noExplicitAny: replies are JSON, checked field by field in tests
export type Json = Record<string, any>;

/** A real engine, the HTTP door in-process on a free port, and the fixture server. */
export interface DoorHarness {
  engine: Engine;
  server: HttpServer;
  fixtures: FixtureServer;
  home: string;
  post(
    body: unknown,
    opts?: { raw?: boolean; headers?: Record<string, string> },
  ): Promise<{ status: number; json: Json }>;
  /** A command that must succeed; returns its data. */
  ok(id: string | undefined, method: string, params?: Json, extra?: Json): Promise<Json>;
  /** A command that must fail; returns the whole reply. */
  fails(
    id: string | undefined,
    method: string,
    params?: Json,
    extra?: Json,
  ): Promise<{ status: number; json: Json }>;
  /** `start` with optional parameters (e.g. allowedOrigins); the new task's id. */
  start(params?: Json): Promise<string>;
  page(name: string): string;
  close(): Promise<void>;
}

export async function doorHarness(
  opts: HttpServerOptions = {},
  engineSettings: EngineSettings = {},
): Promise<DoorHarness> {
  const h = tempHome();
  const engine = newEngine(h.dir, engineSettings);
  const server = await startServer(engine, { port: 0, ...opts });
  const fixtures = await startFixtureServer();
  const post: DoorHarness['post'] = async (body, o = {}) => {
    const res = await fetch(`${server.url}/playwright/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(o.headers ?? {}) },
      body: o.raw ? (body as string) : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const harness: DoorHarness = {
    engine,
    server,
    fixtures,
    home: h.dir,
    post,
    async ok(id, method, params = {}, extra = {}) {
      const { status, json } = await post({ id, method, params, ...extra });
      assert.equal(json.ok, true, `${method}: ${JSON.stringify(json).slice(0, 2000)}`);
      assert.equal(status, 200);
      assert.equal(json.code, 1);
      return json.data;
    },
    async fails(id, method, params = {}, extra = {}) {
      const r = await post({ id, method, params, ...extra });
      assert.equal(r.json.ok, false, `${method} should fail: ${JSON.stringify(r.json).slice(0, 2000)}`);
      assert.equal(r.json.code, 0);
      assert.notEqual(r.status, 500);
      return r;
    },
    async start(params: Json = {}) {
      const d = await harness.ok(undefined, 'start', params);
      return d.id as string;
    },
    page(name) {
      return `${fixtures.url}/fixtures/http/${name}`;
    },
    async close() {
      await server.close().catch(() => {});
      await engine.close().catch(() => {});
      await fixtures.close().catch(() => {});
      h.cleanup();
    },
  };
  return harness;
}

/** A door harness with one started task at the top of a test file, closed after the file's tests. */
export async function doorTestEnv(opts: HttpServerOptions = {}): Promise<{ h: DoorHarness; id: string }> {
  const h = await doorHarness(opts);
  after(async () => h.close());
  return { h, id: await h.start() };
}

/** One request with exact headers, as curl sends it (fetch sets Host itself and adds Sec-Fetch-Mode). */
export function rawRequest(
  port: number,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: opts.path ?? '/playwright/command',
        method: opts.method ?? 'POST',
        headers: opts.headers,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
