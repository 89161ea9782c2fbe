import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createEngine } from '../src/cli/compose.js';
import { engineWarning, familyFor, productFor } from '../src/doors/http/browser-choice.js';
import { TabwrightError } from '../src/engine/errors.js';
import { tempHome } from './helpers/engine.js';
import type { Json } from './helpers/http.js';
import { type ServeProcess, spawnServe } from './helpers/serve.js';

// Issue 17, `start {browser}`: a task asking for Chrome runs on the Chrome binary when one is
// installed, next to Chromium tasks in the same server; Edge without a binary runs on Chromium and
// the reply says so. No Chrome can be installed here, so TABWRIGHT_CHROME points at a "Chrome" that
// is Debian's Chromium with its own user agent, and writes down its pid when launched as a browser.
// Run `npm run -s build` first.

const home = tempHome();
const ran = join(home.dir, 'fake-chrome.pids');
const fakeChrome = join(home.dir, 'fake-chrome');
const FAKE_UA = 'FakeChrome/1.0 (tabwright test)';
let serve: ServeProcess;

before(async () => {
  writeFileSync(
    fakeChrome,
    `#!/bin/sh\ncase "$*" in *--remote-debugging-pipe*) echo $$ >> '${ran}';; esac\nexec /usr/bin/chromium '--user-agent=${FAKE_UA}' "$@"\n`,
  );
  chmodSync(fakeChrome, 0o755);
  serve = await spawnServe(home.dir, [], { TABWRIGHT_CHROME: fakeChrome, TABWRIGHT_EDGE: '' });
});
after(async () => {
  await serve?.close();
  home.cleanup();
});

const command = (body: Json): Promise<Json> => serve.command(body);

const start = async (browser: string): Promise<Json> => {
  const r = await command({ method: 'start', params: { browser } });
  assert.equal(r.ok, true, JSON.stringify(r));
  return r.data;
};
const userAgent = async (id: string): Promise<string> => {
  const r = await command({ id, method: 'execute_js', params: { body: 'return navigator.userAgent' } });
  assert.equal(r.ok, true, JSON.stringify(r));
  return r.data.result;
};
const pids = () => (existsSync(ran) ? readFileSync(ran, 'utf8').trim().split('\n').filter(Boolean) : []);
const alive = (pid: string) => existsSync(`/proc/${pid}`);

test('start: chrome runs on the installed Chrome binary, chromium beside it on Chromium, edge without a binary on Chromium with a warning', async () => {
  const chrome = await start('chrome');
  assert.equal(chrome.effectiveBrowser, 'chrome');
  assert.equal(chrome.engineHonored, true);
  assert.equal(chrome.engineWarning, undefined);
  assert.equal(chrome.browser.type, 'chrome');
  assert.equal(chrome.browser.chrome, true);
  assert.equal(chrome.browser.label, 'Google Chrome');
  assert.equal(chrome.browser.executable, fakeChrome);
  assert.equal(await userAgent(chrome.id), FAKE_UA, 'the task runs in the browser TABWRIGHT_CHROME started');
  assert.equal(pids().length, 1, 'one Chrome launched');
  const chromePid = pids()[0]!;
  assert.ok(alive(chromePid));
  assert.match(readFileSync(`/proc/${chromePid}/cmdline`, 'utf8'), /--user-agent=FakeChrome/);

  const chromium = await start('chromium');
  assert.equal(chromium.effectiveBrowser, 'chromium');
  assert.equal(chromium.engineHonored, true);
  assert.equal(chromium.browser.chrome, false);
  assert.equal(chromium.browser.executable, undefined);
  assert.match(await userAgent(chromium.id), /HeadlessChrome\/\d+/, "Chromium's own binary");

  const edge = await start('edge');
  assert.equal(edge.effectiveBrowser, 'chromium');
  assert.equal(edge.engineHonored, false);
  assert.match(edge.engineWarning, /^请求的浏览器是 edge，实际用的是 chromium：本机没有找到 Microsoft Edge/);
  assert.match(edge.engineWarning, /TABWRIGHT_EDGE=<可执行文件路径> 重启 tabwright serve/, 'says what to do');
  assert.notEqual(await userAgent(edge.id), FAKE_UA);

  // A second Chrome task shares the Chrome browser; the Chromium tasks never went through the wrapper.
  const chrome2 = await start('chrome');
  assert.equal(await userAgent(chrome2.id), FAKE_UA);
  assert.deepEqual(pids(), [chromePid], 'one shared Chrome, and Chromium tasks did not launch it');

  const config = await command({ method: 'get_config' });
  assert.deepEqual(config.data.installedBrowsers, { chrome: fakeChrome });
  assert.deepEqual(config.data.typeChoices, ['auto', 'chromium', 'chrome', 'edge', 'firefox']);

  const doctor = spawnSync(process.execPath, ['bin/tabwright.js', 'doctor', '--json'], {
    encoding: 'utf8',
    env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_CHROME: fakeChrome, TABWRIGHT_EDGE: '' },
  });
  assert.deepEqual(JSON.parse(doctor.stdout).products, { chrome: fakeChrome }, doctor.stderr);

  // Two shared browsers (Chrome's, Chromium's) are the server's children; shutting it down closes both.
  const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(serve.child.pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  assert.equal(children.length, 2, `Chrome and Chromium: ${children.join(' ')}`);
  assert.ok(children.includes(chromePid));
  await serve.close();
  for (const pid of children) assert.equal(alive(pid), false, `browser ${pid} is gone with the server`);
});

test('session.start product: refused where tabwright does not launch the browser, setup_required when not installed', async () => {
  const engine = createEngine({ home: home.dir, grid: null });
  try {
    const attach = await engine
      .startSession({ kind: 'attach', endpoint: 'http://127.0.0.1:9', product: 'chrome' })
      .catch((e: TabwrightError) => e);
    assert.ok(attach instanceof TabwrightError);
    assert.equal(attach.code, 'unsupported_target');
    assert.equal(attach.details.field, 'product');
    const saved = process.env.TABWRIGHT_EDGE;
    process.env.TABWRIGHT_EDGE = join(home.dir, 'no-such-edge');
    try {
      const edge = await engine.startSession({ product: 'edge' }).catch((e: TabwrightError) => e);
      assert.ok(edge instanceof TabwrightError);
      assert.equal(edge.code, 'setup_required');
      assert.match(edge.message, /TABWRIGHT_EDGE points to .*no-such-edge, which is not an executable file/);
    } finally {
      if (saved === undefined) delete process.env.TABWRIGHT_EDGE;
      else process.env.TABWRIGHT_EDGE = saved;
    }
  } finally {
    await engine.close();
  }
});

test('browser choice: auto is the server default, chrome / edge only on an installed binary, every warning says what to do', () => {
  assert.equal(
    familyFor('auto', ['firefox', 'chromium']),
    'firefox',
    'serve --browser firefox: auto is Firefox',
  );
  assert.equal(familyFor('chrome', ['firefox', 'chromium']), 'chromium');
  assert.equal(familyFor('firefox', ['chromium']), 'chromium');
  assert.equal(productFor('chrome', 'chromium', { chrome: '/opt/c' }), 'chrome');
  assert.equal(productFor('edge', 'chromium', { chrome: '/opt/c' }), undefined);
  assert.equal(productFor('chromium', 'chromium', { chrome: '/opt/c' }), undefined);
  assert.match(engineWarning('firefox', 'chromium'), /TABWRIGHT_FIREFOX=<路径>，再重启 tabwright serve/);
  assert.match(
    engineWarning('chrome', 'chromium'),
    /TABWRIGHT_CHROME=<可执行文件路径> 重启 tabwright serve$/,
  );
  assert.match(
    engineWarning('chrome', 'chromium', 'http://grid:4444'),
    /Selenium Grid（http:\/\/grid:4444）.*不带 --grid/,
  );
  assert.match(engineWarning('chromium', 'chrome'), /TABWRIGHT_CHROMIUM=<路径>/);
});
