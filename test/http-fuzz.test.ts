import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSteps } from '../src/doors/http/batch.js';
import { CommandFailure } from '../src/doors/http/envelope.js';
import { doorTestEnv } from './helpers/http.js';
import { seededRandom as rng } from './helpers/random.js';

const { h, id } = await doorTestEnv();

function value(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 2 ? 6 : 8));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 2000) - 1000;
    case 3:
      return ['', 'get_url', '{{x}}', '\u0000', '中文', '9'.repeat(40), 'click_element_by_index'][
        Math.floor(r() * 7)
      ];
    case 4:
      return r() * 1e20;
    case 5:
      return undefined;
    case 6:
      return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = [
        'id',
        'method',
        'params',
        'commands',
        'index',
        'text',
        'url',
        'expect',
        'js',
        'stopOnError',
        '__proto__',
      ];
      for (let i = 0; i < Math.floor(r() * 4); i++)
        o[keys[Math.floor(r() * keys.length)]!] = value(r, depth + 1);
      return o;
    }
  }
}

const READ_ONLY = [
  'get_url',
  'get_title',
  'get_tabs',
  'list_methods',
  'get_config',
  'list_tasks',
  'get_element_count',
  'find_text',
  'get_cookies',
];

test('random envelopes never produce a 500 and always answer with the envelope shape', async () => {
  const r = rng(42);
  for (let i = 0; i < 150; i++) {
    let body: string;
    const mode = r();
    if (mode < 0.15) body = JSON.stringify(value(r)) ?? '';
    else if (mode < 0.25)
      body = ['{', '{"method":', '[]', 'null', '"x"', '{"method":"get_url",}', '\u00ff\u00fe'][
        Math.floor(r() * 7)
      ]!;
    else {
      const method = r() < 0.7 ? READ_ONLY[Math.floor(r() * READ_ONLY.length)] : value(r);
      body = JSON.stringify({
        id: r() < 0.7 ? id : value(r),
        method,
        params: r() < 0.3 ? value(r) : {},
        responseMode: r() < 0.3 ? 'compact' : value(r),
        diagnostics: value(r),
      });
    }
    const res = await fetch(`${h.server.url}/playwright/command`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    assert.notEqual(res.status, 500, body);
    const j = (await res.json()) as Record<string, unknown>;
    assert.equal(typeof j.ok, 'boolean', body);
    assert.equal(j.code, j.ok ? 1 : 0);
    assert.equal(typeof j.data, 'object');
    if (!j.ok) assert.equal(typeof j.msg, 'string');
    assert.equal(res.status === 400, (j.data as Record<string, unknown>).invalidArgument === true, body);
  }
});

test('random batch shapes are either parsed or refused with invalidArgument, never thrown otherwise', async () => {
  const r = rng(7);
  for (let i = 0; i < 500; i++) {
    const list = Array.from({ length: Math.floor(r() * 5) }, () => value(r));
    try {
      const steps = parseSteps(list);
      for (const s of steps) assert.equal(typeof s.method, 'string');
    } catch (err) {
      assert.ok(err instanceof CommandFailure, String(err));
      assert.equal(err.invalidArgument, true);
    }
  }
  // Over the wire, random batches of read-only steps.
  for (let i = 0; i < 20; i++) {
    const commands = Array.from({ length: 1 + Math.floor(r() * 4) }, () =>
      r() < 0.8 ? { [READ_ONLY[Math.floor(r() * READ_ONLY.length)]!]: r() < 0.8 ? {} : value(r) } : value(r),
    );
    const res = await h.post({ id, method: 'commands', params: { commands, stopOnError: r() < 0.5 } });
    assert.notEqual(res.status, 500);
    assert.equal(typeof res.json.ok, 'boolean');
  }
});
