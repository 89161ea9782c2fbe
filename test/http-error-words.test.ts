import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mapEngineError } from '../src/doors/http/error-map.js';
import { captureError } from '../src/doors/http/evidence.js';
import { TabwrightError } from '../src/engine/errors.js';

// The HTTP door's own sentences for engine failures (no browser: the mapping alone). The doors'
// real transports are tested in http-actions, http-serve and backpressure; these are the failures
// that are hard to cause on purpose there.

const english = /[A-Za-z]{3,} [A-Za-z]{3,} [A-Za-z]{3,}/;

const cases: [string, TabwrightError, RegExp][] = [
  [
    'a page that crashed',
    new TabwrightError('page_not_found', 'Page p1 crashed (its renderer process is gone).', {
      details: { page_id: 'p1', reason: 'crashed' },
    }),
    /标签页崩溃了.*close_tab/,
  ],
  [
    'no open page',
    new TabwrightError('page_not_found', 'Session s1 has no open page. Open one with tab.new or page.open.', {
      details: { session_id: 's1', page_id: null },
    }),
    /没有打开的标签页.*new_tab \/ go_to_url/,
  ],
  [
    'low memory',
    new TabwrightError('not_ready', 'The machine has 100 MiB of memory available, below …', {
      retryable: true,
      details: { reason: 'low_memory', available_mb: 100, min_free_mb: 256, sessions: 3 },
    }),
    /只剩 100 MiB 可用内存，低于下限 256 MiB/,
  ],
  [
    'a command that never started',
    new TabwrightError('not_ready', 'page.read did not start within 100 ms because …', {
      retryable: true,
      details: { outcome: 'not_started', timeout_ms: 100, operation: 'page.read', aborted: false },
    }),
    /在 100 毫秒内没能开始：它没有执行，可以安全地重发/,
  ],
  [
    'a command whose outcome is unknown',
    new TabwrightError('not_ready', 'page.act was dispatched but did not finish within 100 ms …', {
      details: { outcome: 'unknown', timeout_ms: 100, operation: 'page.act', aborted: false },
    }),
    /命令已经发出，但在 100 毫秒内没有完成，结果未知/,
  ],
  [
    'upload_file on an element that is not a file input',
    new TabwrightError('unsupported_target', 'The target is <button>, not an <input type=file>.', {
      details: { reason: 'not_file_input', tag: 'button', element_ref: 'e3' },
    }),
    /这个元素是 <button>，不是文件输入框/,
  ],
  [
    'download_image on an element with no image',
    new TabwrightError('invalid_request', 'No image to download: no image source.', {
      details: { field: 'target', reason: 'not_an_image', tag: 'div' },
    }),
    /这个元素（<div>）上没有可下载的图片/,
  ],
  [
    'a human-input request that expired',
    new TabwrightError('invalid_request', 'Request h1 expired; the agent must issue a new one.', {
      details: { field: 'request_id', request_id: 'h1', status: 'expired' },
    }),
    /人工输入请求 h1 已过期/,
  ],
  [
    'an unknown human-input request',
    new TabwrightError(
      'invalid_request',
      'No human-input request h9 (requests live in memory; issue a new one).',
      {
        details: { field: 'request_id', request_id: 'h9' },
      },
    ),
    /没有人工输入请求 h9/,
  ],
];

test("an engine parameter's name is this door's (data.field)", () => {
  const f = mapEngineError('submit_human_input', cases.at(-1)![1]);
  assert.equal(f.data.field, 'requestId');
  assert.equal(f.data.errorCode, 'INVALID_ARGUMENT');
});

for (const [what, err, words] of cases) {
  test(`engine failure in this door's words: ${what}`, () => {
    const f = mapEngineError('get_url', err);
    assert.match(f.message, words, f.message);
    assert.doesNotMatch(f.message, english, f.message);
    assert.equal(f.data.engineMessage, err.message, 'the engine text stays available');
  });
}

describe("an automatic capture's failure (screenshot_error) in this door's words", () => {
  const failures: [string, unknown, RegExp][] = [
    ['the page crashed during the command', cases[0]![1], /标签页崩溃了/],
    [
      'the page closed',
      new TabwrightError(
        'page_not_found',
        "Page p1 is closed. List the session's pages (tab.list) and use another.",
        {
          details: { page_id: 'p1' },
        },
      ),
      /没有打开的标签页（或它已经关闭）/,
    ],
    [
      'the capture ran out of time',
      new TabwrightError('not_ready', 'page.screenshot was dispatched but did not finish within 8000 ms …', {
        details: { outcome: 'unknown', timeout_ms: 8000, operation: 'page.screenshot', aborted: false },
      }),
      /8000 毫秒内没有完成/,
    ],
  ];
  for (const [what, err, words] of failures) {
    test(what, () => {
      const text = captureError(err);
      assert.match(text, /^screenshot 失败：\[[A-Z_]+\] /, text);
      assert.match(text, words, text);
      assert.doesNotMatch(text, english, text);
    });
  }
});
