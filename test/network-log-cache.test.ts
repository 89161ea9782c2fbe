import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RequestLogEvent } from '../src/backends/backend.js';
import { NetworkLog } from '../src/engine/network-log.js';

/** A page that only hands the log its request events. */
function fakePage(id: string): { page: never; emit: (e: RequestLogEvent) => void } {
  let listener: (e: RequestLogEvent) => void = () => {};
  const page = { id, backend: { onRequestLog: (l: typeof listener) => (listener = l) } } as never;
  return { page, emit: (e) => listener(e) };
}

describe('NetworkLog.failedUrls', () => {
  test('a failure or error status after an earlier answer shows in the next one (the answer is cached)', () => {
    const log = new NetworkLog();
    const { page, emit } = fakePage('p1');
    log.watch(page);
    const req = (key: object, url: string) =>
      emit({
        phase: 'request',
        key,
        url,
        method: 'GET',
        resourceType: 'stylesheet',
        postData: null,
        isNavigation: false,
      });
    const a = {};
    const b = {};
    req(a, 'http://x.test/a.css');
    req(b, 'http://x.test/b.css');
    assert.deepEqual(log.failedUrls('p1', 'stylesheet'), []);
    assert.deepEqual(log.failedUrls('p1', 'stylesheet'), []);
    emit({ phase: 'response', key: a, status: 404, statusText: 'Not Found', mimeType: 'text/html' });
    assert.deepEqual(log.failedUrls('p1', 'stylesheet'), ['http://x.test/a.css']);
    emit({ phase: 'failed', key: b, errorText: 'net::ERR_BLOCKED_BY_CLIENT' });
    assert.deepEqual(log.failedUrls('p1', 'stylesheet'), ['http://x.test/a.css', 'http://x.test/b.css']);
    // Another page and another type have their own answers; a caller's copy cannot change the cache.
    assert.deepEqual(log.failedUrls('p2', 'stylesheet'), []);
    assert.deepEqual(log.failedUrls('p1', 'script'), []);
    log.failedUrls('p1', 'stylesheet').push('http://x.test/mutated.css');
    assert.deepEqual(log.failedUrls('p1', 'stylesheet'), ['http://x.test/a.css', 'http://x.test/b.css']);
  });
});
