import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ElementResolver } from '../src/engine/waits.js';
import type { Page } from '../src/index.js';
import { engineTestEnv, rejectsWith } from './helpers/engine.js';

const { server, session } = await engineTestEnv();

async function open(file: string): Promise<Page> {
  const page = session.page();
  await page.open(`${server.url}/fixtures/screenshots/${file}`);
  return page;
}

const isPng = (b: Buffer) => b.readUInt32BE(0) === 0x89504e47;
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8;

describe('screenshots', () => {
  test('viewport (default): PNG of the 1280×800 viewport', async () => {
    const page = await open('index.html');
    const s = await page.screenshot();
    assert.equal(s.mode, 'viewport');
    assert.equal(s.mediaType, 'image/png');
    assert.ok(isPng(s.data));
    assert.deepEqual([s.width, s.height], [1280, 800]);
    assert.equal(s.truncated, false);
  });

  test('a screenshot shows the page as it is: animations, caret and DOM untouched', async () => {
    const page = await open('animated.html');
    const disturbed = async () => (await page.evaluateScript('window.disturbed')).value;
    const before = await disturbed();
    const modes = [
      {},
      { format: 'jpeg' as const },
      { full_page: true },
      { clip: { x: 0, y: 0, width: 200, height: 100 } },
    ];
    for (const req of modes) assert.ok((await page.screenshot(req)).data.length > 0);
    // Freezing animations (finish/cancel) or hiding the caret with a style would show here.
    assert.deepEqual(await disturbed(), before);
    const states = (await page.evaluateScript("document.getAnimations().map((a) => a.playState).join(',')"))
      .value;
    assert.equal(states, 'running,running');
  });

  test('JPEG with quality: smaller files at lower quality', async () => {
    const page = await open('index.html');
    const hi = await page.screenshot({ format: 'jpeg', quality: 95, full_page: true });
    const lo = await page.screenshot({ format: 'jpeg', quality: 10, full_page: true });
    assert.equal(lo.mediaType, 'image/jpeg');
    assert.ok(isJpeg(lo.data) && isJpeg(hi.data));
    assert.ok(lo.data.length < hi.data.length, `${lo.data.length} < ${hi.data.length}`);
    assert.deepEqual([lo.width, lo.height], [hi.width, hi.height]);
  });

  test('full page: the whole document height', async () => {
    const page = await open('index.html');
    const s = await page.screenshot({ full_page: true });
    assert.equal(s.mode, 'full_page');
    assert.equal(s.width, 1280);
    assert.ok(s.height >= 2000, String(s.height));
    assert.equal(s.truncated, false);
    assert.equal(s.requested_height, s.height);
  });

  test('a 40000 px page is cut at 16384 px and says so', async () => {
    const page = await open('tall.html');
    const s = await page.screenshot({ full_page: true }, { timeoutMs: 30_000 });
    assert.equal(s.truncated, true);
    assert.equal(s.height, 16_384);
    assert.equal(s.requested_height, 40_000);
    const smaller = await page.screenshot({ full_page: true, max_height: 3000, format: 'jpeg' });
    assert.equal(smaller.height, 3000);
    assert.equal(smaller.truncated, true);
  });

  test('clip: document coordinates, independent of scrolling', async () => {
    const page = await open('index.html');
    await page.evaluate('scroll', () => window.scrollTo(0, 1000), null);
    const s = await page.screenshot({ clip: { x: 100, y: 1200, width: 200, height: 120 } });
    assert.equal(s.mode, 'clip');
    assert.deepEqual([s.width, s.height], [200, 120]);
    // A clip reaching past the page is cut to the page.
    const edge = await page.screenshot({ clip: { x: 1200, y: 0, width: 500, height: 10 } });
    assert.deepEqual([edge.width, edge.height], [80, 10]);
  });

  test('element by CSS selector: exactly its box', async () => {
    const page = await open('index.html');
    const s = await page.screenshot({ element: { selector: '#box' } });
    assert.equal(s.mode, 'element');
    assert.deepEqual([s.width, s.height], [200, 120]);
  });

  test('element by ref, through the pluggable resolver', async () => {
    const page = await open('index.html');
    const resolveElement: ElementResolver = async (ref) =>
      ref === 'e7' ? { box: { x: 100, y: 1200, width: 200, height: 120 } } : null;
    const s = await page.screenshot({ element: { ref: 'e7' }, resolveElement });
    assert.deepEqual([s.width, s.height], [200, 120]);
    const err = await rejectsWith(
      page.screenshot({ element: { ref: 'e99' }, resolveElement }),
      'element_not_found',
    );
    // The same failure as every other call on a stale ref.
    assert.equal(err.details.reason, 'stale_ref');
    assert.equal(err.details.element_ref, 'e99');
  });

  test('element by snapshot ref (the default resolver)', async () => {
    const page = await open('index.html');
    const snap = await page.snapshot();
    const ref = snap.elements.find((e) => e.role === 'button' && e.name === 'Capture me')?.element_ref;
    assert.ok(ref, 'the snapshot names the button');
    const s = await page.screenshot({ element: { ref } });
    assert.deepEqual([s.width, s.height], [160, 40]);
  });

  test('element errors: no match, several matches, hidden, bad selector', async () => {
    const page = await open('index.html');
    const none = await rejectsWith(page.screenshot({ element: { selector: '#nope' } }), 'element_not_found');
    assert.equal(none.details.match_count, 0);
    const many = await rejectsWith(page.screenshot({ element: { selector: '.item' } }), 'invalid_selector');
    assert.equal(many.details.match_count, 2);
    const hidden = await rejectsWith(
      page.screenshot({ element: { selector: '#hidden' } }),
      'element_not_actionable',
    );
    assert.equal(hidden.details.reason, 'not_visible');
    await rejectsWith(page.screenshot({ element: { selector: 'div[' } }), 'invalid_selector');
  });

  test('invalid requests are refused before anything runs', async () => {
    const page = await open('index.html');
    await rejectsWith(page.screenshot({ quality: 50 }), 'invalid_request');
    await rejectsWith(page.screenshot({ format: 'jpeg', quality: 101 }), 'invalid_request');
    await rejectsWith(page.screenshot({ format: 'gif' as 'png' }), 'invalid_request');
    await rejectsWith(page.screenshot({ full_page: true, element: { selector: '#box' } }), 'invalid_request');
    await rejectsWith(page.screenshot({ clip: { x: 0, y: 0, width: 0, height: 10 } }), 'invalid_request');
    await rejectsWith(
      page.screenshot({ clip: { x: 0, y: 99_999, width: 10, height: 10 } }),
      'invalid_request',
    );
    await rejectsWith(page.screenshot({ element: {} }), 'invalid_request');
    await rejectsWith(page.screenshot({ full_page: true, max_height: 20_000 }), 'invalid_request');
  });
});
