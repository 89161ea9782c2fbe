import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fetchImage, fetchUrl, sniffImageType } from '../src/engine/resources.js';
import type { Engine } from '../src/index.js';
import { newEngine, rejectsWith, tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

/** Engine side of download_image / upload_file's url source: the origin policy holds for context requests. */

let engine: Engine;
let server: FixtureServer;
const home = tempHome();

before(async () => {
  engine = newEngine(home.dir);
  server = await startFixtureServer();
});
after(async () => {
  await engine?.close();
  await server?.close();
  home.cleanup();
});

test('a restricted session never fetches a disallowed origin through the context (images, URLs, redirect hops)', async () => {
  const s = await engine.startSession({ policy: { allowed_origins: [server.url] } });
  const p = s.page();
  await p.open(`${server.url}/fixtures/http/files.html`);
  // Allowed origin: fine.
  const ok = await fetchImage(p, { selector: '#pic' });
  assert.equal(ok.via, 'context');
  // The same server under another origin: refused before any request, whichever way it is reached.
  await p.evaluate(
    'test',
    (alt: string) => {
      (document.getElementById('pic') as HTMLImageElement).src = `${alt}/fixtures/http/text.png`;
    },
    server.altUrl,
  );
  await rejectsWith(fetchImage(p, { selector: '#pic' }), 'permission_denied');
  await rejectsWith(
    fetchUrl(p, `${server.altUrl}/fixtures/http/text.png`, { maxBytes: 1e6 }),
    'permission_denied',
  );
  const viaRedirect = `${server.url}/redirect?to=${encodeURIComponent(`${server.altUrl}/fixtures/http/text.png`)}`;
  await rejectsWith(fetchUrl(p, viaRedirect, { maxBytes: 1e6 }), 'permission_denied');
  await rejectsWith(fetchUrl(p, 'file:///etc/passwd', { maxBytes: 1e6 }), 'permission_denied');
  await rejectsWith(fetchUrl(p, 'ftp://127.0.0.1/x', { maxBytes: 1e6 }), 'invalid_request');
  await engine.closeSession(s.id);
});

test('image types are sniffed from the bytes', () => {
  assert.equal(sniffImageType(Buffer.from('89504e470d0a1a0a0000', 'hex')), 'image/png');
  assert.equal(sniffImageType(Buffer.from('ffd8ffe000', 'hex')), 'image/jpeg');
  assert.equal(sniffImageType(Buffer.from('GIF89a....')), 'image/gif');
  assert.equal(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), 'image/webp');
  assert.equal(sniffImageType(Buffer.from('  <?xml version="1.0"?><svg xmlns="x"></svg>')), 'image/svg+xml');
  assert.equal(sniffImageType(Buffer.from('<!doctype html><title>login</title>')), undefined);
});
