import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { filesOptionsFromEnv, resolveFilesConfig } from '../src/doors/http/files-config.js';
import { type HttpServer, startHttpServer } from '../src/doors/http/server.js';
import { FIXTURE_ROOT } from './helpers/fixture-server.js';
import { type DoorHarness, doorHarness, type Json } from './helpers/http.js';
import { seededRandom } from './helpers/random.js';

/**
 * File staging (POST/GET/DELETE /playwright/upload), upload_file with its receipt, download_image and
 * ocr_image (real tesseract, installed by scripts/setup.mjs, and a fake `command` engine), over real HTTP
 * against real headless Chromium.
 */

const MAX = 64 * 1024; // a small staging limit so oversize tests stay cheap
const TEXT_PNG = readFileSync(join(FIXTURE_ROOT, 'http', 'text.png'));
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let h: DoorHarness;
let id: string;
let uploadDir: string;

before(async () => {
  h = await doorHarness({ files: { uploadMaxBytes: MAX } });
  uploadDir = join(h.home, 'upload');
  id = await h.start();
});
after(async () => h?.close());

async function upload(
  server: { url: string },
  body: BodyInit | undefined,
  opts: { query?: string; type?: string; method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: Json }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.type) headers['content-type'] = opts.type;
  const res = await fetch(`${server.url}/playwright/upload${opts.query ?? ''}`, {
    method: opts.method ?? 'POST',
    headers,
    body,
  });
  const text = await res.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    assert.fail(`not JSON (HTTP ${res.status}): ${text.slice(0, 300)}`);
  }
  assert.notEqual(res.status, 500, JSON.stringify(json));
  return { status: res.status, json };
}

function multipart(field: string, filename: string | undefined, data: Buffer, boundary = 'twBoundary123') {
  const disp = filename === undefined ? `name="${field}"` : `name="${field}"; filename="${filename}"`;
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; ${disp}\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

describe('staging: POST / GET / DELETE /playwright/upload', () => {
  test('the three request forms store the same bytes; reply fields; existed; non-ASCII names kept', async () => {
    const data = Buffer.from('第一份文件 content\n');
    const form = new FormData();
    form.append('file', new Blob([data]), '图样.txt');
    const m = await upload(h.server, form);
    assert.equal(m.json.ok, true, JSON.stringify(m.json));
    assert.equal(m.json.data.filename, '图样.txt');
    assert.equal(m.json.data.relativePath, '图样.txt');
    assert.equal(m.json.data.path, join(uploadDir, '图样.txt'));
    assert.equal(m.json.data.size, data.length);
    assert.equal(m.json.data.sha256, sha(data));
    assert.equal(m.json.data.existed, false);
    assert.equal(m.json.data.form, 'multipart');
    assert.deepEqual(readFileSync(join(uploadDir, '图样.txt')), data);

    const raw = await upload(h.server, data, {
      query: `?filename=${encodeURIComponent('图样.txt')}`,
      type: 'application/octet-stream',
    });
    assert.equal(raw.json.ok, true);
    assert.equal(raw.json.data.existed, true, 'same name: overwritten by default, and said so');
    assert.equal(raw.json.data.filename, '图样.txt');
    assert.equal(raw.json.data.form, 'raw');

    const js = await upload(
      h.server,
      JSON.stringify({ filename: 'b64.bin', contentBase64: TEXT_PNG.toString('base64') }),
      {
        type: 'application/json',
      },
    );
    assert.equal(js.json.ok, true);
    assert.equal(js.json.data.form, 'json');
    assert.equal(js.json.data.sha256, sha(TEXT_PNG));

    // ?field= renames the multipart field; curl-style raw multipart with filename*= (RFC 5987).
    const body = Buffer.concat([
      Buffer.from(
        '--xyz\r\nContent-Disposition: form-data; name="attachment"; filename*=UTF-8\'\'%E6%8A%A5%E5%91%8A.csv\r\n\r\n',
      ),
      Buffer.from('a,b\n1,2\n'),
      Buffer.from('\r\n--xyz--\r\n'),
    ]);
    const f = await upload(h.server, body, {
      query: '?field=attachment',
      type: 'multipart/form-data; boundary=xyz',
    });
    assert.equal(f.json.ok, true, JSON.stringify(f.json));
    assert.equal(f.json.data.filename, '报告.csv');
    assert.equal(readFileSync(join(uploadDir, '报告.csv'), 'utf8'), 'a,b\n1,2\n');

    const list = await upload(h.server, undefined, { method: 'GET' });
    assert.equal(list.json.ok, true);
    const names = list.json.data.files.map((x: Json) => x.filename);
    for (const n of ['图样.txt', 'b64.bin', '报告.csv']) assert.ok(names.includes(n), names.join(','));
    assert.equal(list.json.data.maxBytes, MAX);

    const del = await upload(h.server, undefined, {
      method: 'DELETE',
      query: `?name=${encodeURIComponent('报告.csv')}`,
    });
    assert.equal(del.json.ok, true);
    assert.equal(existsSync(join(uploadDir, '报告.csv')), false);
    const again = await upload(h.server, undefined, {
      method: 'DELETE',
      query: `?name=${encodeURIComponent('报告.csv')}`,
    });
    assert.equal(again.json.ok, false);
    assert.match(again.json.msg, /没有文件 报告\.csv/);
  });

  test('names: base name kept, separators and control characters removed, ../ refused', async () => {
    const cases: [string, string | null][] = [
      ['dir/sub/a.txt', 'a.txt'],
      ['C:\\Users\\me\\b.txt', 'b.txt'],
      ['c\u0001d\u007f.txt', 'cd.txt'],
      ['../x', null],
      ['a/../../x', null],
      ['..\\..\\x', null],
      ['..', null],
      ['/', null],
      ['   ', null],
      ['\u0000\u0001', null],
      ['x'.repeat(300), null],
    ];
    for (const [name, expected] of cases) {
      for (const form of ['raw', 'json', 'multipart'] as const) {
        const r =
          form === 'raw'
            ? await upload(h.server, Buffer.from('x'), {
                query: `?filename=${encodeURIComponent(name)}`,
                type: 'text/plain',
              })
            : form === 'json'
              ? await upload(h.server, JSON.stringify({ filename: name, contentBase64: 'eA==' }), {
                  type: 'application/json',
                })
              : await upload(h.server, multipart('file', name.replace(/"/g, ''), Buffer.from('x')), {
                  type: 'multipart/form-data; boundary=twBoundary123',
                });
        const label = `${form} ${JSON.stringify(name)}`;
        if (expected === null) {
          assert.equal(r.json.ok, false, `${label} must be refused: ${JSON.stringify(r.json)}`);
          assert.equal(r.status, 400, label);
          assert.equal(r.json.data.invalidArgument, true, label);
        } else {
          assert.equal(r.json.ok, true, `${label}: ${JSON.stringify(r.json)}`);
          assert.equal(r.json.data.filename, expected, label);
          assert.equal(r.json.data.path, join(uploadDir, expected), label);
        }
      }
    }
    const trav = await upload(h.server, Buffer.from('x'), {
      query: '?filename=../escape.txt',
      type: 'text/plain',
    });
    assert.equal(trav.json.data.traversal, true);
    assert.equal(existsSync(join(h.home, 'escape.txt')), false);
  });

  test('bad input is a structured 400, never a 500: base64, sizes, content types, multipart shape', async () => {
    const bad = async (r: Promise<{ status: number; json: Json }>, msg: RegExp, label: string) => {
      const { status, json } = await r;
      assert.equal(json.ok, false, `${label}: ${JSON.stringify(json)}`);
      assert.equal(status, 400, label);
      assert.equal(json.data.invalidArgument, true, label);
      assert.match(json.msg, msg, label);
    };
    const j = (o: unknown) => upload(h.server, JSON.stringify(o), { type: 'application/json' });
    await bad(j({ filename: 'a.bin', contentBase64: '@@@not base64@@@' }), /不是有效的 base64/, 'bad base64');
    await bad(
      j({ filename: 'a.bin', contentBase64: 'abcde' }),
      /不是有效的 base64/,
      'base64 of impossible length',
    );
    await bad(j({ filename: 'a.bin', contentBase64: 42 }), /base64 字符串/, 'base64 not a string');
    await bad(j({ filename: 'a.bin' }), /缺少参数 contentBase64/, 'no content');
    await bad(j({ contentBase64: 'eA==' }), /缺少文件名/, 'no filename');
    await bad(j([1, 2]), /必须是对象/, 'JSON array');
    await bad(
      upload(h.server, '{"filename":', { type: 'application/json' }),
      /JSON 请求体解析失败/,
      'broken JSON',
    );
    await bad(
      j({ filename: 'big.bin', contentBase64: Buffer.alloc(MAX + 1).toString('base64') }),
      /超过上限 65536/,
      'JSON oversize',
    );
    await bad(
      upload(h.server, Buffer.alloc(MAX + 1), {
        query: '?filename=big.bin',
        type: 'application/octet-stream',
      }),
      /超过上限/,
      'raw oversize (handler)',
    );
    const huge = await upload(h.server, Buffer.alloc(3 * 1024 * 1024), {
      query: '?filename=huge.bin',
      type: 'application/octet-stream',
    });
    assert.equal(huge.status, 400, 'body over the route limit');
    assert.equal(huge.json.data.tooLarge, true);
    assert.equal(huge.json.data.maxBytes, MAX);
    await bad(
      upload(h.server, Buffer.from('x'), { type: 'application/octet-stream' }),
      /缺少 \?filename=/,
      'raw without filename',
    );
    await bad(
      upload(h.server, Buffer.from('x'), { type: 'multipart/mixed; boundary=a' }),
      /只接受 multipart\/form-data/,
      'multipart/mixed',
    );
    await bad(
      upload(h.server, Buffer.from('x'), { type: 'multipart/form-data' }),
      /缺少 boundary/,
      'no boundary',
    );
    await bad(
      upload(h.server, Buffer.from('garbage'), { type: 'multipart/form-data; boundary=zz' }),
      /找不到 boundary/,
      'boundary absent in body',
    );
    await bad(
      upload(h.server, multipart('other', 'a.txt', Buffer.from('x')), {
        type: 'multipart/form-data; boundary=twBoundary123',
      }),
      /没有名为 file 的文件字段（收到的字段：note, other）/,
      'wrong field',
    );
    await bad(
      upload(
        h.server,
        Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc'),
        {
          type: 'multipart/form-data; boundary=b',
        },
      ),
      /不完整/,
      'truncated multipart',
    );
    await bad(upload(h.server, undefined, { method: 'DELETE' }), /缺少参数 name/, 'delete without name');
    await bad(
      upload(h.server, undefined, { method: 'DELETE', query: '?name=../x' }),
      /\.\./,
      'delete traversal',
    );
    await bad(
      upload(h.server, undefined, { method: 'DELETE', query: '?name=a/b' }),
      /不能带路径/,
      'delete with a path',
    );

    // Random bodies and content types (seeded, so a failure repeats): always JSON, never 500.
    const rnd = seededRandom(7);
    const types = [
      'application/json',
      'multipart/form-data; boundary=q',
      'text/plain',
      'application/octet-stream',
      'image/png',
      '',
    ];
    const queries = [
      '',
      '?filename=r.bin',
      '?filename=%2e%2e%2fx',
      '?filename=%00',
      '?field=x',
      `?filename=${'a'.repeat(50)}`,
    ];
    for (let i = 0; i < 60; i++) {
      const len = Math.floor(rnd() * 200);
      const body = Buffer.from(Array.from({ length: len }, () => Math.floor(rnd() * 256)));
      if (rnd() < 0.3)
        body.write('--q\r\nContent-Disposition: form-data; name="file"; filename="z"\r\n\r\n', 0);
      const r = await upload(h.server, body, {
        type: types[Math.floor(rnd() * types.length)] || undefined,
        query: queries[Math.floor(rnd() * queries.length)],
      });
      assert.equal(typeof r.json.ok, 'boolean');
      if (!r.json.ok) assert.equal(typeof r.json.msg, 'string');
      else assert.ok(r.json.data.path.startsWith(uploadDir), r.json.data.path);
    }
  });

  test('auto-rename with overwrite off; the request guard (Host, token) covers the upload routes', async () => {
    const stageDir = mkdtempSync(join(tmpdir(), 'tw-stage-'));
    const other = await startHttpServer(h.engine, {
      port: 0,
      token: 'upload-token-0123456789',
      files: { uploadOverwrite: false, uploadDir: stageDir },
    });
    try {
      const auth = { authorization: 'Bearer upload-token-0123456789' };
      const denied = await upload(other, Buffer.from('x'), { query: '?filename=a.txt', type: 'text/plain' });
      assert.equal(denied.status, 401);
      const a1 = await upload(other, Buffer.from('one'), {
        query: '?filename=a.txt',
        type: 'text/plain',
        headers: auth,
      });
      const a2 = await upload(other, Buffer.from('two'), {
        query: '?filename=a.txt',
        type: 'text/plain',
        headers: auth,
      });
      const a3 = await upload(other, Buffer.from('three'), {
        query: '?filename=a.txt',
        type: 'text/plain',
        headers: auth,
      });
      assert.equal(a1.json.data.filename, 'a.txt');
      assert.equal(a1.json.data.existed, false);
      assert.equal(a2.json.data.filename, 'a-1.txt');
      assert.equal(a2.json.data.existed, true);
      assert.equal(a2.json.data.renamedFrom, 'a.txt');
      assert.equal(a3.json.data.filename, 'a-2.txt');
      assert.equal(readFileSync(a1.json.data.path, 'utf8'), 'one');
      assert.equal(readFileSync(a2.json.data.path, 'utf8'), 'two');
    } finally {
      await other.close();
      rmSync(stageDir, { recursive: true, force: true });
    }
    // DNS rebinding: a foreign Host header is refused before any body is read.
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(h.server.url);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: '/playwright/upload?filename=x.txt',
          method: 'POST',
          headers: { host: 'evil.example' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('x');
    });
    assert.equal(status, 403);
    assert.equal(existsSync(join(uploadDir, 'x.txt')), false);
  });

  test('get_config shows upload and ocr; cleanup scope upload clears staged files, all never does', async () => {
    const cfg = await h.ok(undefined, 'get_config');
    assert.equal(cfg.upload.dir, uploadDir);
    assert.equal(cfg.upload.maxBytes, MAX);
    assert.equal(cfg.upload.overwrite, true);
    assert.equal(cfg.ocr.engine, 'auto');
    assert.equal(typeof cfg.ocr.available, 'boolean');
    await upload(h.server, Buffer.from('old'), { query: '?filename=cleanme.txt', type: 'text/plain' });
    const all = await h.ok(undefined, 'cleanup', { scope: 'all', olderThanHours: 0, dryRun: true });
    assert.ok(!all.files.some((f: string) => f.startsWith(uploadDir)), 'all never lists staged uploads');
    const dry = await h.ok(undefined, 'cleanup', { scope: 'upload', olderThanHours: 0 });
    assert.equal(dry.dryRun, true);
    assert.ok(dry.files.includes(join(uploadDir, 'cleanme.txt')));
    assert.ok(existsSync(join(uploadDir, 'cleanme.txt')), 'a dry run deletes nothing');
    await h.ok(undefined, 'cleanup', { scope: 'upload', olderThanHours: 0, dryRun: false });
    assert.equal(existsSync(join(uploadDir, 'cleanme.txt')), false);
  });
});

describe('upload_file', () => {
  let staged: string;
  before(async () => {
    const r = await upload(h.server, Buffer.from('hello upload'), {
      query: '?filename=hello.txt',
      type: 'text/plain',
    });
    staged = r.json.data.path;
    await h.ok(id, 'go_to_url', { url: h.page('files.html') });
  });

  const status = async (sel = '#status') =>
    (await h.ok(id, 'get_element_text', { selector: sel })).text as string;

  test('a listened input: files set, listeners read over CDP, change observed, page-changing evidence', async () => {
    const d = await h.ok(id, 'upload_file', { path: staged, selector: '#listened' });
    assert.equal(d.filesLength, 1);
    assert.deepEqual(d.files, ['hello.txt']);
    assert.equal(d.hasListeners, true);
    assert.equal(d.listenerDetection, 'cdp');
    assert.ok(d.listeners.events.includes('change'), JSON.stringify(d.listeners));
    assert.equal(d.consumed, 'listened');
    assert.equal(d.changed, true);
    assert.equal(d.changeStatus, 'observed');
    assert.equal(d.effective, true);
    assert.equal(d.hint, undefined);
    assert.equal(d.matched, 1);
    assert.equal(d.chosenIndex, 0);
    assert.equal(d.explicitNth, false);
    assert.equal(d.target, 'selector=#listened');
    assert.equal(typeof d.seq, 'number', 'upload_file is page-changing: it gets a capture');
    assert.equal(await status(), 'listened: hello.txt 12');
  });

  test('relative path (staging dir), a silent input: noListener, not effective, with a hint', async () => {
    const d = await h.ok(id, 'upload_file', { path: 'hello.txt', selector: '#silent' });
    assert.equal(d.filesLength, 1);
    assert.deepEqual(d.listeners, {
      vue2: false,
      vue3: false,
      react: false,
      inline: false,
      jquery: false,
      events: [],
      delegated: [],
    });
    assert.equal(d.hasListeners, false);
    assert.equal(d.listenerDetection, 'cdp');
    assert.equal(d.consumed, 'noListener');
    assert.equal(d.changed, false);
    assert.equal(d.effective, false);
    assert.match(d.hint, /没有监听/);
  });

  test('hidden inputs by selector; several matches: the first unless nth; nth out of range', async () => {
    const hidden = await h.ok(id, 'upload_file', { path: staged, selector: '#hidden' });
    assert.equal(hidden.input.visible, false);
    assert.equal(await status(), 'hidden: hello.txt');
    const first = await h.ok(id, 'upload_file', { path: staged, selector: '.pair' });
    assert.equal(first.matched, 2);
    assert.equal(first.chosenIndex, 0);
    assert.equal(first.visibleMatched, 0);
    assert.equal(first.explicitNth, false);
    assert.match(first.selectorNote, /第一个/);
    assert.equal(await status('#pairstatus'), 'pair0: hello.txt');
    const second = await h.ok(id, 'upload_file', { path: staged, selector: '.pair', nth: 1 });
    assert.equal(second.chosenIndex, 1);
    assert.equal(second.explicitNth, true);
    assert.equal(await status('#pairstatus'), 'pair1: hello.txt');
    const out = await h.fails(id, 'upload_file', { path: staged, selector: '.pair', nth: 2 });
    assert.equal(out.json.data.errorCode, 'ELEMENT_NOT_FOUND');
  });

  test('zero matches: ELEMENT_NOT_FOUND at once; a missing file points to POST /playwright/upload; not a file input', async () => {
    const t0 = Date.now();
    const none = await h.fails(id, 'upload_file', { path: staged, selector: '#nope', timeoutMs: 30_000 });
    assert.equal(none.json.data.errorCode, 'ELEMENT_NOT_FOUND');
    assert.equal(none.json.data.matched, 0);
    assert.ok(Date.now() - t0 < 20_000, 'did not wait for an actionability timeout');
    const missing = await h.fails(id, 'upload_file', { path: '/no/such/file.pdf', selector: '#listened' });
    assert.equal(missing.status, 400);
    assert.match(missing.json.msg, /POST \/playwright\/upload/);
    assert.equal(missing.json.data.fileMissing, true);
    const outside = await h.fails(id, 'upload_file', { path: '../secret.txt', selector: '#listened' });
    assert.equal(outside.status, 400);
    const notFile = await h.fails(id, 'upload_file', { path: staged, selector: '#notfile' });
    assert.match(notFile.json.msg, /不是文件输入框（<input type=file>）/, notFile.json.msg);
    assert.equal(notFile.json.data.reason, 'not_file_input');
    assert.equal(notFile.json.data.retryable, false);
    const noSource = await h.fails(id, 'upload_file', { selector: '#listened' });
    assert.equal(noSource.status, 400);
    const two = await h.fails(id, 'upload_file', { path: staged, url: 'http://x/', selector: '#listened' });
    assert.match(two.json.msg, /只能有一个/);
    const noTarget = await h.fails(id, 'upload_file', { path: staged });
    assert.match(noTarget.json.msg, /缺少参数 index/);
  });

  test('contentBase64 + filename + contentType, url through the context, several files, a replaced input', async () => {
    const b64 = await h.ok(id, 'upload_file', {
      contentBase64: Buffer.from('abc').toString('base64'),
      filename: 'note',
      contentType: 'text/plain',
      selector: '#listened',
    });
    assert.equal(b64.filesLength, 1);
    assert.equal(b64.stagedPath, join(uploadDir, 'note.txt'));
    assert.equal(await status(), 'listened: note.txt 3');

    const fromUrl = await h.ok(id, 'upload_file', {
      url: `${h.fixtures.url}/fixtures/http/text.png`,
      selector: '#listened',
    });
    assert.equal(fromUrl.sha256, sha(TEXT_PNG));
    assert.equal(await status(), `listened: text.png ${TEXT_PNG.length}`);
    const badUrl = await h.fails(id, 'upload_file', {
      url: `${h.fixtures.url}/status?code=404`,
      selector: '#listened',
    });
    assert.match(badUrl.json.msg, /HTTP 404/);

    const second = (
      await upload(h.server, Buffer.from('2'), { query: '?filename=two.txt', type: 'text/plain' })
    ).json.data.path;
    const many = await h.ok(id, 'upload_file', { paths: [staged, second], selector: '#many' });
    assert.equal(many.filesLength, 2);
    assert.equal(await status(), 'many: 2');
    const single = await h.fails(id, 'upload_file', { paths: [staged, second], selector: '#silent' });
    assert.match(single.json.msg, /takes one file/);

    const gone = await h.ok(id, 'upload_file', { path: staged, selector: '#replaced' });
    assert.equal(gone.elementGone, true);
    assert.match(gone.readbackNote, /not a failure/);
    assert.equal(gone.filesLength, undefined, 'null (unknown) is omitted from the reply');
    assert.equal(await status(), 'taken: hello.txt');
  });

  test('by index from get_browser_state; in a frame by name', async () => {
    await h.ok(id, 'go_to_url', { url: h.page('files.html') });
    const state = await h.ok(id, 'get_browser_state');
    const el = state.elements.find(
      (e: Json) => e.selector === '#listened' || /listened/i.test(e.selector ?? ''),
    );
    assert.ok(el, `no #listened in ${JSON.stringify(state.elements.map((e: Json) => e.selector))}`);
    const d = await h.ok(id, 'upload_file', { path: staged, index: el.index });
    assert.equal(d.target, `index=${el.index}`);
    assert.equal(await status(), 'listened: hello.txt 12');

    await h.ok(id, 'go_to_url', { url: h.page('files-frame.html') });
    const f = await h.ok(id, 'upload_file', { path: staged, selector: '#innerfile', frame: 'inner' });
    assert.equal(f.filesLength, 1);
    assert.equal(f.listenerDetection, 'heuristic', 'listeners are read over CDP in the main frame only');
    assert.equal(f.hasListeners, undefined, 'null (unknown) is omitted from the reply');
    assert.equal(
      (await h.ok(id, 'get_element_text', { selector: '#innerstatus', frame: 'inner' })).text,
      'inner: hello.txt',
    );
  });
});

describe('download_image', () => {
  before(async () => {
    await h.ok(id, 'go_to_url', { url: h.page('files.html') });
    await h.ok(id, 'wait_for_function', {
      expression:
        'document.getElementById("blobimg").complete && document.getElementById("blobimg").src.startsWith("blob:")',
    });
  });

  test('an img through the context: original bytes, numbered files, GET-able /data/ URL', async () => {
    const a = await h.ok(id, 'download_image', { selector: '#pic' });
    assert.equal(a.via, 'context');
    assert.equal(a.contentType, 'image/png');
    assert.equal(a.sha256, sha(TEXT_PNG));
    assert.equal(a.size, TEXT_PNG.length);
    assert.match(a.srcUrl, /\/fixtures\/http\/text\.png$/);
    assert.ok(a.naturalWidth > 100 && a.naturalHeight > 20, `${a.naturalWidth}x${a.naturalHeight}`);
    assert.match(a.filename, /^image-\d+\.png$/);
    assert.deepEqual(readFileSync(a.path), TEXT_PNG);
    const res = await fetch(`${h.server.url}${a.url}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    const b = await h.ok(id, 'download_image', { selector: '#pic' });
    assert.notEqual(b.path, a.path, 'each call writes a new numbered file');
    assert.equal(Number(/\d+/.exec(b.filename)![0]), Number(/\d+/.exec(a.filename)![0]) + 1);
    const named = await h.ok(id, 'download_image', { selector: '#pic', filename: 'chart' });
    assert.equal(named.filename, 'chart.png');
    const named2 = await h.ok(id, 'download_image', { selector: '#pic', filename: 'chart' });
    assert.equal(named2.filename, 'chart-1.png', 'never overwrites');
  });

  test('a cookie-protected image comes with the context cookies; background, data: and blob: images', async () => {
    const plain = await fetch(`${h.fixtures.url}/private/text.png`);
    assert.equal(plain.status, 403, 'the fixture really needs the cookie');
    const p = await h.ok(id, 'download_image', { selector: '#priv' });
    assert.equal(p.via, 'context');
    assert.equal(p.sha256, sha(TEXT_PNG));
    const bg = await h.ok(id, 'download_image', { selector: '#bg' });
    assert.equal(bg.sha256, sha(TEXT_PNG));
    const data = await h.ok(id, 'download_image', { selector: '#dataimg' });
    assert.equal(data.via, 'data-url');
    assert.equal(data.contentType, 'image/png');
    assert.equal(data.naturalWidth, 8);
    const blob = await h.ok(id, 'download_image', { selector: '#blobimg' });
    assert.equal(blob.via, 'page', 'blob: URLs only exist in the page');
    assert.equal(blob.contentType, 'image/png');
    assert.equal(blob.naturalHeight, 6);
    const lazy = await h.ok(id, 'download_image', { selector: '#lazy' });
    assert.equal(lazy.lazySrc, `${h.fixtures.url}/fixtures/http/real.png`);
    assert.match(lazy.hint, /懒加载/);
    assert.equal(p.lazySrc, undefined);
    const inner = await h.fails(id, 'download_image', { selector: '#innerpic', frame: 0 });
    assert.equal(inner.json.data.errorCode, 'ELEMENT_NOT_FOUND', 'frame 0: the top document only');
  });

  test('not an image, no target, zero matches', async () => {
    const r = await h.fails(id, 'download_image', { selector: '#plain' });
    assert.match(r.json.msg, /上没有可下载的图片/, r.json.msg);
    assert.equal((await h.fails(id, 'download_image', {})).status, 400);
    const none = await h.fails(id, 'download_image', { selector: '#nope' });
    assert.equal(none.json.data.errorCode, 'ELEMENT_NOT_FOUND');
  });
});

describe('ocr_image', () => {
  before(async () => {
    await h.ok(id, 'go_to_url', { url: h.page('files.html') });
  });

  test('tesseract (installed by setup): a downloaded image by path, an element captured by selector', async () => {
    const cfg = await h.ok(undefined, 'get_config');
    assert.equal(
      cfg.ocr.available,
      true,
      `no OCR engine: ${JSON.stringify(cfg.ocr)} (scripts/setup.mjs installs tesseract-ocr)`,
    );
    const img = await h.ok(id, 'download_image', { selector: '#pic' });
    const r = await h.ok(id, 'ocr_image', { path: img.path, language: 'en-US' });
    assert.equal(r.ok, true);
    assert.match(r.text, /TABWRIGHT\s*42/);
    assert.equal(r.lineCount, 1);
    assert.equal(r.engine, 'command');
    assert.equal(r.commandSource, 'tesseract');
    assert.equal(r.engineLanguage, 'eng');
    assert.equal(r.imagePath, img.path);
    assert.equal(r.imageUrl, img.url);
    const byUrl = await h.ok(id, 'ocr_image', { path: img.url, language: 'eng' });
    assert.match(byUrl.text, /TABWRIGHT/);
    const shot = await h.ok(id, 'ocr_image', { selector: '#ocrtext', language: 'en' });
    assert.match(shot.text, /TABWRIGHT\s*42/);
    assert.match(shot.imageUrl, /^\/data\/.+\/ocr-\d+\.png$/);
    assert.equal((await fetch(`${h.server.url}${shot.imageUrl}`)).status, 200);
  });

  test('request_human_input with ocr:true reads the captured element', async () => {
    const r = await h.ok(id, 'request_human_input', {
      prompt: '请看图',
      selector: '#ocrtext',
      ocr: true,
      ocrLanguage: 'en-US',
      timeoutSeconds: 30,
    });
    assert.equal(r.ocr.ok, true, JSON.stringify(r.ocr));
    assert.match(r.ocr.text, /TABWRIGHT\s*42/);
    const noImage = await h.ok(id, 'request_human_input', {
      prompt: '请登录',
      ocr: true,
      timeoutSeconds: 30,
    });
    assert.equal(noImage.ocr.ok, false);
  });

  test('a language without data: engineMissing with the installed languages and the fallback; bad input', async () => {
    const r = await h.fails(id, 'ocr_image', { selector: '#ocrtext', language: 'xx-YY' });
    assert.equal(r.json.data.engineMissing, true);
    assert.ok(r.json.data.installedLanguages.includes('eng'), JSON.stringify(r.json.data));
    assert.match(r.json.msg, /tesseract-ocr-xx-yy/);
    assert.match(r.json.data.fallback, /request_human_input/);
    assert.match(r.json.data.imageUrl, /^\/data\//, 'the captured image is still there to show a person');
    const bad = await h.fails(id, 'ocr_image', { path: 'x.png', language: '"; rm -rf /' });
    assert.equal(bad.status, 400);
    const lang = await h.fails(id, 'ocr_image', { selector: '#ocrtext', language: 'en; rm -rf /' });
    assert.equal(lang.status, 400);
    const missing = await h.fails(id, 'ocr_image', { path: '/no/such.png' });
    assert.equal(missing.status, 400);
    const notImage = await h.fails(id, 'ocr_image', { path: join(FIXTURE_ROOT, 'http', 'files.html') });
    assert.match(notImage.json.msg, /不是 OCR 能读的图片格式/);
    const none = await h.fails(id, 'ocr_image', {});
    assert.equal(none.status, 400);
  });

  test('the command engine: placeholders, stdout or {output}, a failing command never falls back, timeout, none configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-ocr-'));
    const script = join(dir, 'fake ocr.mjs');
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs';
const [input, output, lang] = process.argv.slice(2);
if (lang === 'fail') { process.stderr.write('boom: model missing'); process.exit(3); }
if (lang === 'hang') setInterval(() => {}, 1000);
else if (output === '-') process.stdout.write('STDOUT ' + input.split('/').pop() + ' ' + lang + '\\n');
else writeFileSync(output, 'FAKE ' + input.split('/').pop() + ' ' + lang + '\\n\\n  second line  \\n\\f');
`,
    );
    const servers: HttpServer[] = [];
    const serve = async (ocr: Json) => {
      const s = await startHttpServer(h.engine, { port: 0, files: { ocr } });
      servers.push(s);
      const post = async (method: string, params: Json, taskId?: string) =>
        (await (
          await fetch(`${s.url}/playwright/command`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ id: taskId, method, params }),
          })
        ).json()) as Json;
      const t = (await post('start', {})).data.id as string;
      return { post: (m: string, p: Json) => post(m, p, t) };
    };
    try {
      const q = (s: string) => `"${s}"`;
      const withOutput = await serve({
        engine: 'command',
        command: `${q(process.execPath)} ${q(script)} {input} {output} {language}`,
      });
      const img = join(FIXTURE_ROOT, 'http', 'text.png');
      const r = await withOutput.post('ocr_image', { path: img });
      assert.equal(r.ok, true, JSON.stringify(r));
      assert.equal(
        r.data.text,
        'FAKE text.png zh-Hans-CN\n\n  second line',
        'language passed as asked; form feed and trailing blanks removed',
      );
      assert.equal(r.data.lineCount, 2);
      assert.equal(r.data.commandSource, 'configured');
      const failed = await withOutput.post('ocr_image', { path: img, language: 'fail' });
      assert.equal(failed.ok, false);
      assert.equal(failed.data.ocrFailed, true);
      assert.equal(failed.data.exitCode, 3);
      assert.match(failed.data.stderr, /boom/);
      assert.equal(failed.data.text, undefined, 'no silent fallback to another engine');
      const hung = await withOutput.post('ocr_image', { path: img, language: 'hang', timeoutMs: 300 });
      assert.equal(hung.ok, false);
      assert.equal(hung.data.timedOut, true);
      assert.equal(hung.data.retryable, true);

      const stdout = await serve({ command: `${q(process.execPath)} ${q(script)} {input} - {language}` });
      const s = await stdout.post('ocr_image', { path: img, language: 'en-US' });
      assert.equal(s.data.text, 'STDOUT text.png en-US');

      const none = await serve({ engine: 'command' });
      const n = await none.post('ocr_image', { path: img });
      assert.equal(n.ok, false);
      assert.equal(n.data.engineMissing, true);
      assert.match(n.data.install, /tesseract-ocr/);
      assert.match(n.data.fallback, /request_human_input/);
      const cfg = await none.post('get_config', {});
      assert.equal(cfg.data.ocr.available, false);

      const broken = await serve({ engine: 'command', command: '/no/such/ocr {input}' });
      const b = await broken.post('ocr_image', { path: img });
      assert.equal(b.ok, false);
      assert.match(b.msg, /could not be started/);
    } finally {
      for (const s of servers) await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('settings from the environment: parsed, defaults, and bad values refused', () => {
  const o = filesOptionsFromEnv({
    TABWRIGHT_UPLOAD_DIR: '/tmp/stage',
    TABWRIGHT_UPLOAD_MAX_BYTES: '1024',
    TABWRIGHT_UPLOAD_OVERWRITE: 'false',
    TABWRIGHT_OCR_ENGINE: 'command',
    TABWRIGHT_OCR_COMMAND: 'ocr {input}',
    TABWRIGHT_OCR_TIMEOUT_MS: '5000',
  });
  assert.deepEqual(resolveFilesConfig('/home/x', o), {
    upload: { dir: '/tmp/stage', maxBytes: 1024, overwrite: false },
    ocr: { engine: 'command', command: 'ocr {input}', timeoutMs: 5000 },
  });
  assert.deepEqual(resolveFilesConfig('/home/x', filesOptionsFromEnv({})), {
    upload: { dir: '/home/x/upload', maxBytes: 64 * 1024 * 1024, overwrite: true },
    ocr: { engine: 'auto', command: undefined, timeoutMs: 30_000 },
  });
  assert.throws(
    () => filesOptionsFromEnv({ TABWRIGHT_UPLOAD_MAX_BYTES: '64MB' }),
    /TABWRIGHT_UPLOAD_MAX_BYTES/,
  );
  assert.throws(
    () => filesOptionsFromEnv({ TABWRIGHT_UPLOAD_OVERWRITE: 'yes' }),
    /TABWRIGHT_UPLOAD_OVERWRITE/,
  );
  assert.throws(() => filesOptionsFromEnv({ TABWRIGHT_OCR_ENGINE: 'windows' }), /TABWRIGHT_OCR_ENGINE/);
  assert.throws(() => filesOptionsFromEnv({ TABWRIGHT_OCR_TIMEOUT_MS: '0' }), /TABWRIGHT_OCR_TIMEOUT_MS/);
});
