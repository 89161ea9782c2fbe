import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { getHeapCodeStatistics } from 'node:v8';
import { leanBundle, oneByteSource, playwrightCore } from '../src/backends/chromium/load-playwright.js';
import { daemonEnv } from '../src/cli/malloc-env.js';
import { tempHome } from './helpers/engine.js';
import { jsCli } from './helpers/js-cli.js';
import { BIN, ROOT } from './helpers/provider.js';

/**
 * A lean Node side (docs/ARCHITECTURE.md, "Bounds, back-pressure and a lean Node side"): each door
 * command loads its own modules only, and playwright-core waits for the first browser. The built
 * CLI runs with test/fixtures/loaded-modules/record.mjs, which writes every module the process
 * loads to a file.
 */

const RECORD = join(ROOT, 'test/fixtures/loaded-modules/record.mjs');
const home = tempHome();
after(() => home.cleanup());

const PACKAGES = {
  fastify: '/node_modules/fastify/',
  // fastify's JSON-schema compilers: no route of ours declares a schema (src/doors/http/lazy-compilers.ts).
  ajv: '/node_modules/ajv/',
  fastJsonStringify: '/node_modules/fast-json-stringify/index.js',
  mcpSdk: '/node_modules/@modelcontextprotocol/sdk/',
  playwright: '/node_modules/playwright-core/',
  ws: '/node_modules/ws/',
  // Trace zips (src/engine/semantics/trace-scrub.ts): required at the first trace scrubbed.
  fflate: '/node_modules/fflate/',
  httpDoor: '/dist/doors/http/',
  // The HTTP door's method table (about 2 MB of zod schemas): loaded with the first command.
  httpMethods: '/dist/doors/http/methods.js',
  mcpDoor: '/dist/doors/mcp/',
  providerDoor: '/dist/doors/provider/',
};
type Part = keyof typeof PACKAGES;

/** esbuild's metafile of the CLI bundle: which sources each output holds and what it imports. */
interface BundleMeta {
  inputs: Record<string, unknown>;
  outputs: Record<string, { inputs: Record<string, unknown>; imports: { path: string; kind: string }[] }>;
}
const bundleMeta = (): BundleMeta =>
  JSON.parse(readFileSync(join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as BundleMeta;

/**
 * The modules a record names, in its order. The CLI runs as one bundle (scripts/bundle-cli.mjs):
 * a loaded file of dist/bundle/ stands for the sources esbuild put in it (its metafile), each
 * named by its path as if it had been loaded on its own.
 */
function modules(file: string): string[] {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const meta = bundleMeta();
  return lines.flatMap((line) => {
    const at = line.indexOf('/dist/bundle/');
    const output = at < 0 ? undefined : meta.outputs[line.slice(at + 1)];
    return output ? [line, ...Object.keys(output.inputs).map((input) => join(ROOT, input))] : [line];
  });
}

function loaded(file: string): (part: Part) => boolean {
  const lines = modules(file);
  return (part) => lines.some((l) => l.includes(PACKAGES[part]));
}

function spawnRecorded(name: string, args: string[]) {
  const file = join(home.dir, `${name}-modules.txt`);
  const child = spawn(process.execPath, ['--import', RECORD, BIN, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TABWRIGHT_HOME: home.dir, TABWRIGHT_LOG: 'warn', RECORD_MODULES_FILE: file },
  });
  child.stderr.resume();
  return { child, file };
}

/** Writes one line and resolves with the first line of the answer. */
function ask(child: ReturnType<typeof spawnRecorded>['child'], line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString('utf8');
      const end = text.indexOf('\n');
      if (end < 0) return;
      child.stdout!.off('data', onData);
      resolve(text.slice(0, end));
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited (${code}) before answering`)));
    child.stdin!.write(`${line}\n`);
  });
}

/** The URL a spawned `tabwright serve` prints once it listens. */
function listening(child: ReturnType<typeof spawnRecorded>['child']): Promise<string> {
  child.stdout!.setEncoding('utf8');
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
  });
}

/** Runs `body`; whatever happens, the child is gone afterwards (SIGTERM, as a user stops it). */
async function stopping(child: ReturnType<typeof spawnRecorded>['child'], body: () => Promise<void>) {
  try {
    await body();
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
}

describe('each door command loads its own modules', () => {
  test('tabwright provider: no HTTP server, no MCP SDK, no other door; no browser driver before a session', async () => {
    const { child, file } = spawnRecorded('provider', ['provider']);
    await stopping(child, async () => {
      const describe = { protocol_version: '0.1', id: 'd', method: 'provider.describe', params: {} };
      const reply = JSON.parse(await ask(child, JSON.stringify(describe)));
      assert.equal(reply.ok, true, JSON.stringify(reply));
      child.stdin!.end();
      await once(child, 'exit');
    });
    const has = loaded(file);
    assert.ok(has('providerDoor'), 'the record saw the provider door (the recorder works)');
    // The bin sets the V8 flags before the CLI's first module (src/cli/v8-flags.ts).
    const order = modules(file);
    const flags = order.findIndex((l) => l.endsWith('/dist/cli/v8-flags.js'));
    assert.ok(
      flags >= 0 && flags < order.findIndex((l) => l.endsWith('/dist/cli/main.js')),
      order.join('\n'),
    );
    assert.ok(
      order.some((l) => l.endsWith('/dist/bundle/main.js')),
      'the bin runs the bundled CLI',
    );
    // ws: the Firefox backend's BiDi client (offered here when Firefox is installed, never started).
    for (const part of ['fastify', 'mcpSdk', 'httpDoor', 'mcpDoor', 'playwright', 'ws', 'fflate'] as const)
      assert.equal(has(part), false, `tabwright provider loaded ${PACKAGES[part]}`);
  });

  test('tabwright mcp: no HTTP server, no other door', async () => {
    const { child, file } = spawnRecorded('mcp', ['mcp']);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lean', version: '0' } },
    };
    await stopping(child, async () => {
      assert.match(await ask(child, JSON.stringify(init)), /"result"/);
      child.stdin!.end();
      await once(child, 'exit');
    });
    const has = loaded(file);
    assert.ok(has('mcpSdk') && has('mcpDoor'), 'the record saw the MCP door');
    for (const part of ['fastify', 'httpDoor', 'providerDoor', 'playwright', 'fflate'] as const)
      assert.equal(has(part), false, `tabwright mcp loaded ${PACKAGES[part]}`);
  });

  test('tabwright serve: the MCP SDK only once /mcp is used, the command table only once a command comes', async () => {
    const { child, file } = spawnRecorded('serve', ['serve', '--port', '0']);
    await stopping(child, async () => {
      const base = await listening(child);
      assert.equal((await fetch(`${base}/health`)).status, 200);
      let has = loaded(file);
      assert.ok(has('fastify') && has('httpDoor'), 'the record saw the HTTP door');
      for (const part of ['mcpSdk', 'providerDoor', 'playwright', 'httpMethods'] as const)
        assert.equal(has(part), false, `tabwright serve loaded ${PACKAGES[part]} before any /mcp request`);
      // A request without a session: refused by the MCP sessions, which load with the SDK.
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(await res.json()), /initialize/);
      has = loaded(file);
      assert.ok(has('mcpSdk'), 'the first /mcp request loaded the MCP SDK');
      assert.equal(
        has('httpMethods'),
        false,
        'a server used through /mcp only never loads the command table',
      );
      const listed = await fetch(`${base}/playwright/methods`);
      assert.equal(((await listed.json()) as { ok?: boolean }).ok, true);
      assert.ok(loaded(file)('httpMethods'), 'the first command loaded the command table');
    });
  });

  test('tabwright serve: fastify never loads its JSON-schema compilers (no route declares a schema)', async () => {
    const { child, file } = spawnRecorded('serve-http', ['serve', '--port', '0']);
    await stopping(child, async () => {
      const base = await listening(child);
      const res = await fetch(`${base}/playwright/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'list_methods' }),
      });
      assert.equal(((await res.json()) as { ok?: boolean }).ok, true);
    });
    // CommonJS modules are recorded when the process exits (record.mjs).
    const has = loaded(file);
    assert.ok(has('fastify'), 'the record saw fastify');
    for (const part of ['ajv', 'fastJsonStringify'] as const)
      assert.equal(has(part), false, `tabwright serve loaded ${PACKAGES[part]}`);
  });
});

describe('the CLI as one bundle (scripts/bundle-cli.mjs)', () => {
  test("zod's locales in it are English and those the code names (the HTTP door's Chinese)", () => {
    const meta = bundleMeta();
    const locales = Object.keys(meta.inputs)
      .filter((p) => /zod\/v4\/locales\/(?!index\.js)/.test(p))
      .map((p) => p.replace(/.*\//, ''))
      .sort();
    assert.deepEqual(locales, ['en.js', 'zh-CN.js']);
  });

  test('the V8 flags run before any other source: what the flags and daemon entries import statically', () => {
    const meta = bundleMeta();
    // Everything an entry's static imports evaluate before the entry's own code (chunks included).
    const before = (output: string, seen = new Set<string>()): string[] =>
      meta.outputs[output]!.imports.filter(
        (i) => i.kind === 'import-statement' && meta.outputs[i.path] && !seen.has(i.path),
      ).flatMap((i) => {
        seen.add(i.path);
        return [...before(i.path, seen), ...Object.keys(meta.outputs[i.path]!.inputs)];
      });
    for (const entry of ['v8-flags', 'js-daemon-main']) {
      const sources = before(`dist/bundle/${entry}.js`).filter((p) => p !== 'dist/cli/v8-flags.js');
      assert.deepEqual(sources, [], `dist/bundle/${entry}.js runs these before the flags`);
    }
  });
});

describe('V8 flags of a tabwright process (src/cli/v8-flags.ts)', () => {
  /**
   * The number `body` prints, run in a process that loaded the flags first (`TABWRIGHT_V8_FLAGS`:
   * undefined for the defaults).
   */
  async function printedWithFlags(flags: string | undefined, body: string): Promise<number> {
    const code = `await import(${JSON.stringify(join(ROOT, 'dist/bundle/v8-flags.js'))});\n${body}`;
    const env = { ...process.env };
    if (flags === undefined) delete env.TABWRIGHT_V8_FLAGS;
    else env.TABWRIGHT_V8_FLAGS = flags;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await once(child, 'exit');
    return Number(out.trim());
  }

  /** The young generation's size after allocating 1.5 M survivors. */
  const youngGenerationMb = (flags: string | undefined) =>
    printedWithFlags(
      flags,
      `const keep = []; for (let i = 0; i < 1_500_000; i++) keep.push({ i });
const ns = (await import('node:v8')).getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
console.log(ns.space_size / 1048576);`,
    );

  test('--optimize-for-size set at run time keeps the young generation small; TABWRIGHT_V8_FLAGS="" sets none', async () => {
    const [lean, plain] = await Promise.all([youngGenerationMb(undefined), youngGenerationMb('')]);
    assert.ok(lean > 0 && lean <= 16, `young generation ${lean} MB with the default flags`);
    assert.ok(plain > 16, `young generation ${plain} MB without flags: the check cannot tell them apart`);
  });

  test('the JS daemon starts with a fixed glibc trim threshold, unless its caller chose one', async () => {
    assert.equal(daemonEnv({}).MALLOC_TRIM_THRESHOLD_, '131072');
    assert.equal(daemonEnv({ MALLOC_TRIM_THRESHOLD_: '0' }).MALLOC_TRIM_THRESHOLD_, '0');
    const tuned = { GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=65536' };
    assert.equal(daemonEnv(tuned).MALLOC_TRIM_THRESHOLD_, undefined);
    const js = jsCli(`lean-${process.pid}`);
    try {
      assert.equal((await js.cli(['--start'])).code, 0);
      const { pid } = JSON.parse((await js.cli(['--status'])).stdout) as { pid: number };
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(environ.includes('MALLOC_TRIM_THRESHOLD_=131072'), environ.join('\n'));
    } finally {
      await js.stop();
    }
  });

  test('the JS daemon sets them first too', () => {
    const entry = readFileSync(join(ROOT, 'src/cli/js-daemon-main.ts'), 'utf8');
    assert.match(entry.replace(/^\/\/.*\n/gm, ''), /^import '\.\/v8-flags\.js';/);
  });
});

describe('playwright-core bundles as one-byte strings', () => {
  test('wide characters on comment lines are escaped; anywhere else the source is left alone', () => {
    // The loader reads a file's UTF-8 bytes as latin1, one char per byte.
    const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    assert.equal(
      oneByteSource(bytes('a();\n// a ─ b\n  * c → d\nb();')),
      'a();\n// a \\u2500 b\n  * c \\u2192 d\nb();',
    );
    assert.equal(oneByteSource(bytes('/* ─ */ x();')), '/* \\u2500 */ x();');
    assert.equal(oneByteSource(bytes('// 😀')), '// \\ud83d\\ude00', 'astral: its two UTF-16 units');
    assert.equal(oneByteSource(bytes('const s = "─";')), undefined);
    assert.equal(
      oneByteSource(bytes('x("é"); // é')),
      'x("é"); // é',
      'Latin-1 is one-byte already, anywhere',
    );
    assert.equal(oneByteSource('x(); // \xff'), undefined, 'not UTF-8: left to Node');
  });

  test('the installed playwright-core loads with both bundles off the V8 heap', () => {
    const before = getHeapCodeStatistics().external_script_source_size;
    assert.equal(typeof playwrightCore().chromium.launch, 'function');
    const grown = getHeapCodeStatistics().external_script_source_size - before;
    // coreBundle.js + utilsBundle.js: 6.9 MB of one-byte source, or 5.2 MB as the lean copies a build
    // writes (found from src/ too); two-byte heap strings would add nothing here.
    assert.ok(grown > 5_000_000, `external script source grew by ${grown} bytes only`);
  });
});

describe('lean copies of the playwright-core bundles (scripts/lean-playwright.mjs)', () => {
  const core = createRequire(import.meta.url).resolve('playwright-core/lib/coreBundle');
  const { version } = JSON.parse(readFileSync(join(core, '../../package.json'), 'utf8')) as {
    version: string;
  };

  test('a copy is used only when its manifest names the installed version and the original size', () => {
    const dir = join(home.dir, 'lean-copies');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'coreBundle.js'), 'module.exports = 1;');
    const manifest = (v: string, bytes: number) =>
      writeFileSync(
        join(dir, 'manifest.json'),
        JSON.stringify({ version: v, bundles: { coreBundle: { sourceBytes: bytes } } }),
      );
    const size = statSync(core).size;
    manifest(version, size);
    assert.equal(leanBundle(core, dir), 'module.exports = 1;');
    manifest(`${version}-other`, size);
    assert.equal(leanBundle(core, dir), undefined, 'another playwright-core version');
    manifest(version, size + 1);
    assert.equal(leanBundle(core, dir), undefined, 'an original of another size');
    assert.equal(leanBundle(core.replace('coreBundle', 'utilsBundle'), dir), undefined, 'no entry');
    assert.equal(leanBundle(core, join(dir, 'none')), undefined, 'no manifest');
  });

  test('the built CLI compiles the copies: playwright-core functions without indentation', async () => {
    const loader = join(ROOT, 'dist/backends/chromium/load-playwright.js');
    const code = `const { playwrightCore } = await import(${JSON.stringify(loader)});
console.log(Object.getPrototypeOf(playwrightCore().chromium).launch.toString());`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await once(child, 'exit');
    assert.match(out, /_wrapApiCall/, out);
    assert.doesNotMatch(
      out,
      /\n\s/,
      'the original source (run `npm run build`: it writes dist/vendor/playwright-core)',
    );
  });
});
