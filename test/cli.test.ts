import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { tempHome } from './helpers/engine.js';
import { isAlive } from './helpers/external-browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import type { Json } from './helpers/http.js';

// These tests drive the built CLI (`npm test` builds first) as a user would.
const BIN = 'bin/tabwright.js';
const isRoot = process.getuid?.() === 0;

let fixtures: FixtureServer;
const home = tempHome();
before(async () => {
  fixtures = await startFixtureServer();
});
after(async () => {
  await fixtures.close();
  home.cleanup();
});

describe('tabwright doctor', () => {
  test('--json reports the selected browser, its version and the directories', () => {
    const r = spawnSync(process.execPath, [BIN, 'doctor', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, TABWRIGHT_HOME: home.dir },
    });
    assert.equal(r.status, 0, r.stderr);
    const d = JSON.parse(r.stdout);
    assert.ok(d.selected_browser, 'a browser is selected');
    const selected = d.browsers.find((b: { selected: boolean }) => b.selected);
    assert.match(selected.version, /Chrom/);
    assert.equal(d.home, home.dir);
    assert.deepEqual(
      d.dirs.map((x: { role: string }) => x.role),
      ['home', 'profiles', 'downloads'],
    );
    assert.deepEqual(d.problems, []);
  });

  test('text output names the browser; no browser → exit 1 with the install command', () => {
    const ok = spawnSync(process.execPath, [BIN, 'doctor'], { encoding: 'utf8' });
    assert.equal(ok.status, 0);
    assert.match(ok.stdout, /browser +\* chromium +\S+ +Chromium/);
    // Firefox is listed too, with its version (issue 21).
    assert.match(ok.stdout, /browser +\* firefox +\S+ +Mozilla Firefox \d+/);
    const missing = spawnSync(process.execPath, [BIN, 'doctor'], {
      encoding: 'utf8',
      env: { ...process.env, TABWRIGHT_BROWSER_PATHS: '/nonexistent/chrome' },
    });
    assert.equal(missing.status, 1);
    assert.match(missing.stdout, /apt-get update && apt-get install -y chromium/);
  });
});

describe('setup script', () => {
  test('not root and no browser: a clear message with the exact install command, exit 1', {
    skip: !isRoot,
  }, () => {
    const r = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, 'scripts/setup.mjs'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, TABWRIGHT_BROWSER_PATHS: '/nonexistent/chrome' },
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /not running as root/);
    assert.match(r.stderr, /apt-get update && apt-get install -y chromium/);
    assert.equal(r.stdout, '', 'setup prints progress on stderr only');
  });
});

describe('tabwright serve', () => {
  test('prints where it listens and a curl; answers health and commands; SIGTERM closes its browser', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: { ...process.env, TABWRIGHT_HOME: home.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    const listening = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        // The example lines may come in separate chunks: wait for the last one.
        if (m && out.includes('curl -s -X POST')) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
    });
    const base = await listening;
    try {
      assert.match(out, /curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/playwright\/command/);
      const health = await fetch(`${base}/playwright/health`);
      assert.equal(await health.text(), '{"data":{"name":"tabwright"},"code":1,"ok":true}');
      const cmd = (body: unknown) =>
        fetch(`${base}/playwright/command`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json() as Promise<{ ok: boolean; data: Record<string, unknown> }>);
      const started = await cmd({ method: 'start' });
      assert.equal(started.ok, true);
      const id = started.data.id;
      assert.equal(typeof id, 'string');
      const nav = await cmd({
        id,
        method: 'go_to_url',
        params: { url: `${fixtures.url}/fixtures/nav/a.html` },
      });
      assert.equal(nav.ok, true, JSON.stringify(nav));
      const title = await cmd({ id, method: 'get_title' });
      assert.equal(title.data.title, 'Page A');
      const browserPids = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean)
        .map(Number);
      assert.ok(browserPids.length > 0, 'serve launched a browser child');
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      assert.equal(code, 0);
      await new Promise((r) => setTimeout(r, 500));
      for (const pid of browserPids) assert.equal(isAlive(pid), false, `browser ${pid} left running`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

/** `tabwright serve --port 0 …args` until it prints where it listens; the caller kills it. */
async function startServe(
  args: string[],
): Promise<{ base: string; out: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, TABWRIGHT_HOME: home.dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && out.includes('curl -s -X POST')) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  return { base, out: () => out, stop };
}

describe('tabwright serve: --allow-origin and --allow-file-urls', () => {
  const cmd = (base: string, body: unknown) =>
    fetch(`${base}/playwright/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<{ ok: boolean; msg?: string; data: Json }>);

  test('--allow-origin is the ceiling of every task; a bad origin stops the server with the reason', async () => {
    const s = await startServe(['--allow-origin', fixtures.url]);
    try {
      assert.match(s.out(), new RegExp(`origins: only ${fixtures.url}`));
      const cfg = await cmd(s.base, { method: 'get_config' });
      assert.deepEqual(cfg.data.originPolicy.allowedOrigins, [fixtures.url]);
      const started = await cmd(s.base, { method: 'start' });
      assert.equal(started.data.originPolicy.source, 'server');
      const id = started.data.id;
      const away = await cmd(s.base, { id, method: 'go_to_url', params: { url: `${fixtures.altUrl}/` } });
      assert.equal(away.ok, false);
      assert.match(away.msg ?? '', /拒绝访问 http:\/\/localhost:\d+/);
    } finally {
      await s.stop();
    }
    const bad = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--allow-origin', 'example.com'], {
      encoding: 'utf8',
      env: { ...process.env, TABWRIGHT_HOME: home.dir },
    });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /tabwright serve: "example\.com" is not an origin/);
  });

  test('file: is refused without --allow-file-urls and opens with it', async () => {
    for (const allow of [false, true]) {
      const s = await startServe(allow ? ['--allow-file-urls'] : []);
      try {
        const { data } = await cmd(s.base, { method: 'start' });
        const nav = await cmd(s.base, {
          id: data.id,
          method: 'go_to_url',
          params: { url: 'file:///etc/hostname' },
        });
        assert.equal(nav.ok, allow, JSON.stringify(nav));
        if (!allow) assert.match(nav.msg ?? '', /--allow-file-urls/);
      } finally {
        await s.stop();
      }
    }
  });
});
