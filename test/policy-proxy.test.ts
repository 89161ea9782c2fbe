import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { NetworkPolicy } from '../src/engine/network-policy.js';
import { OriginPolicy } from '../src/engine/policy.js';
import { PolicyProxy, type ProxiedAttempt, parseAuthority } from '../src/engine/policy-proxy.js';

// The policy proxy on its own (no browser): what it forwards, what it refuses and records.

let origin: ReturnType<typeof createServer>;
let allowed: string;
let proxy: PolicyProxy;
let network: NetworkPolicy;

before(async () => {
  origin = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () =>
      res
        .writeHead(201, { 'x-seen-proxy-headers': String(!!req.headers['proxy-connection']) })
        .end(`${req.method} ${req.url} ${body}`),
    );
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  allowed = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  network = new NetworkPolicy(OriginPolicy.parse({ allowed_origins: [allowed] }), () => undefined);
  proxy = await PolicyProxy.start();
  proxy.judge = (a: ProxiedAttempt) => network.judgeProxied(a);
});
after(async () => {
  await proxy.close();
  await new Promise<void>((r) => origin.close(() => r()));
});

function viaProxy(
  url: string,
  opts: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: proxy.port, path: url, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

function connect(authority: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: authority });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('plain HTTP: an allowed origin is forwarded (method, body, status; hop-by-hop headers dropped)', async () => {
  const r = await viaProxy(`${allowed}/path?q=1`, {
    method: 'POST',
    body: 'hello',
    headers: { 'proxy-connection': 'keep-alive' },
  });
  assert.equal(r.status, 201);
  assert.equal(r.body, 'POST /path?q=1 hello');
  assert.equal(r.headers['x-seen-proxy-headers'], 'false');
});

test('plain HTTP to another origin: 403 from the proxy, recorded as background (a navigation when it says so)', async () => {
  const since = network.lastSeq;
  const r = await viaProxy('http://127.0.0.2:9/beacon', {
    method: 'POST',
    headers: { 'sec-fetch-dest': 'empty' },
  });
  assert.equal(r.status, 403);
  assert.equal(r.headers['x-tabwright-refused'], 'origin-policy');
  await viaProxy('http://127.0.0.2:9/doc', {
    headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' },
  });
  const recs = network.blocked({ since_seq: since });
  assert.deepEqual(
    recs.map((b) => [b.kind, b.method, b.url, b.resource_type, b.page_id]),
    [
      ['background', 'POST', 'http://127.0.0.2:9/beacon', 'empty', null],
      ['navigation', 'GET', 'http://127.0.0.2:9/doc', 'iframe', null],
    ],
  );
});

test('CONNECT: judged by host:port; refused tunnels get 403 before anything is connected; upstream down is 502', async () => {
  const since = network.lastSeq;
  assert.equal(await connect(new URL(allowed).host), 200);
  assert.equal(await connect('127.0.0.2:443'), 403);
  assert.equal(
    await connect(`localhost:${new URL(allowed).port}`),
    403,
    'another host name is another origin',
  );
  const recs = network.blocked({ since_seq: since }).map((b) => [b.kind, b.method, b.url, b.resource_type]);
  assert.deepEqual(recs, [
    ['background', 'CONNECT', '127.0.0.2:443', 'tunnel'],
    ['background', 'CONNECT', `localhost:${new URL(allowed).port}`, 'tunnel'],
  ]);
  // An allowed host:port with nothing listening: the proxy says so (never a made-up page).
  const closed = OriginPolicy.parse({ allowed_origins: ['http://127.0.0.1:9'] });
  const saved = proxy.judge;
  proxy.judge = (a) => new NetworkPolicy(closed, () => undefined).judgeProxied(a);
  try {
    assert.equal(await connect('127.0.0.1:9'), 502);
    const r = await viaProxy('http://127.0.0.1:9/');
    assert.equal(r.status, 502);
    assert.equal(r.headers['x-tabwright-proxy-error'], 'ECONNREFUSED');
  } finally {
    proxy.judge = saved;
  }
});

test('a request that is not an absolute http URI, and a malformed CONNECT, are refused', async () => {
  assert.equal((await viaProxy('/relative')).status, 400);
  assert.equal(await connect('no-port'), 400);
  assert.deepEqual(parseAuthority('[::1]:8080'), { host: '::1', port: 8080 });
  assert.equal(parseAuthority('host:0'), null);
  assert.equal(parseAuthority('host:70000'), null);
});

test('OriginPolicy.allowsHostPort: an allowed origin on either scheme, default ports, host patterns', () => {
  const p = OriginPolicy.parse({
    allowed_origins: ['https://example.com', 'http://127.0.0.1:8080', 'http://[::1]:3000'],
    allowed_host_patterns: ['*.corp.example'],
  });
  assert.equal(p.allowsHostPort('example.com', 443), true);
  assert.equal(p.allowsHostPort('example.com', 80), false);
  assert.equal(p.allowsHostPort('127.0.0.1', 8080), true);
  assert.equal(p.allowsHostPort('::1', 3000), true);
  assert.equal(p.allowsHostPort('a.corp.example', 8443), true);
  assert.equal(p.allowsHostPort('corp.example', 443), false);
  assert.equal(OriginPolicy.allowAll().allowsHostPort('anything', 1), true);
});

test('subresources "allow": tunnels and non-navigation HTTP pass, a plain-HTTP navigation elsewhere does not', () => {
  const n = new NetworkPolicy(
    OriginPolicy.parse({ allowed_origins: [allowed], subresources: 'allow' }),
    () => undefined,
  );
  assert.equal(n.judgeProxied({ via: 'connect', host: '127.0.0.2', port: 443 }), 'allow');
  assert.equal(
    n.judgeProxied({ via: 'http', url: 'http://127.0.0.2/x', method: 'GET', headers: {} }),
    'allow',
  );
  assert.equal(
    n.judgeProxied({
      via: 'http',
      url: 'http://127.0.0.2/x',
      method: 'GET',
      headers: { 'sec-fetch-mode': 'navigate' },
    }),
    'block',
  );
});

/**
 * An origin that answers the first request of each connection and keeps it open, then closes the
 * connection when a second request arrives on it, unanswered: what any server's idle keep-alive
 * timer does when a request is sent just as it fires (Node's servers after 5 s; the soak saw it
 * under load as apps whose script got a 502).
 */
async function idleClosingOrigin(): Promise<{
  url: string;
  seen: string[];
  /** Requests that arrived on a kept-alive connection and were cut unanswered. */
  dropped: string[];
  close(): Promise<void>;
}> {
  const seen: string[] = [];
  const dropped: string[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    let buffered = '';
    let answered = 0;
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.slice(end + 4, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        if (answered++ > 0) {
          dropped.push(head.split(' ').slice(0, 2).join(' '));
          socket.destroy();
          return;
        }
        const line = `${head.split(' ').slice(0, 2).join(' ')} ${body}`;
        seen.push(line);
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${line.length}\r\nConnection: keep-alive\r\n\r\n${line}`,
        );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    dropped,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Runs `body` against a fresh idle-closing origin, with the proxy allowing everything meanwhile. */
async function withIdleClosingOrigin(
  body: (o: Awaited<ReturnType<typeof idleClosingOrigin>>) => Promise<void>,
): Promise<void> {
  const o = await idleClosingOrigin();
  const saved = proxy.judge;
  proxy.judge = () => 'allow';
  try {
    await body(o);
  } finally {
    proxy.judge = saved;
    await o.close();
  }
}

test('an idle connection the origin closes as a request is sent on it: a body-less request is sent again, one with a body goes on a new connection', () =>
  withIdleClosingOrigin(async (o) => {
    assert.equal((await viaProxy(`${o.url}/first`)).status, 200);
    // Sent on the first request's idle connection, which the origin closes unanswered.
    const again = await viaProxy(`${o.url}/app.bundle.js`);
    assert.deepEqual([again.status, again.body], [200, 'GET /app.bundle.js ']);
    assert.ok(
      o.dropped.includes('GET /app.bundle.js'),
      `the origin cut it on the idle connection: ${o.dropped}`,
    );
    assert.equal((await viaProxy(`${o.url}/idle`)).status, 200);
    // A body is never put on an idle connection (it could not be sent again).
    const post = await viaProxy(`${o.url}/form`, { method: 'POST', body: 'a=1' });
    assert.deepEqual([post.status, post.body], [200, 'POST /form a=1']);
    assert.deepEqual(o.seen, ['GET /first ', 'GET /app.bundle.js ', 'GET /idle ', 'POST /form a=1']);
  }));

test('a body-less request of a non-idempotent method (POST, Content-Length 0) never goes on an idle connection, so it is never sent twice', () =>
  withIdleClosingOrigin(async (o) => {
    // Leaves an idle kept-alive connection to the origin in the proxy's pool.
    assert.equal((await viaProxy(`${o.url}/first`)).status, 200);
    const post = await viaProxy(`${o.url}/logout`, { method: 'POST', headers: { 'content-length': '0' } });
    assert.deepEqual([post.status, post.body], [200, 'POST /logout ']);
    // On the idle connection it would reach the origin, be cut, and be sent again: twice.
    assert.deepEqual(o.dropped, []);
    assert.deepEqual(o.seen, ['GET /first ', 'POST /logout ']);
  }));
