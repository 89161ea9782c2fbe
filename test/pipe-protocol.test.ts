import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  CircuitBreaker,
  DEFAULT_RULES,
  deriveSessionKey,
  encodeLine,
  hostMatches,
  jcs,
  LineDecoder,
  MAX_LINE_BYTES,
  MacPolicy,
  PIPE_ACTIONS,
  PipeError,
  parseActionParams,
  parseMessage,
  parseRules,
  seedProblem,
  signCommand,
  verifyCommand,
} from '../src/doors/pipe/protocol/index.js';

const SEED = '00112233445566778899aabbccddeeff';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof PipeError, `expected PipeError, got ${String(err)}`);
    return err.code;
  }
  assert.fail('expected a PipeError');
}

describe('JCS (RFC 8785) known answers', () => {
  test('the RFC 8785 §3.2.2 example', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    assert.equal(
      jcs(input),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  test('keys sorted by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    // Object.keys would list "1" first (an array index), so read the order from the text.
    const order = [...jcs(input).matchAll(/"([^"]*)":"[^"]*"/g)].map((m) => m[1]);
    assert.deepEqual(order, ['\\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
  });

  test('nested objects, no whitespace; lone surrogates are refused', () => {
    assert.equal(jcs({ b: [1, { d: 1, c: 2 }], a: 'x' }), '{"a":"x","b":[1,{"c":2,"d":1}]}');
    assert.equal(
      code(() => jcs({ s: '\ud800' })),
      'invalid_params',
    );
  });
});

describe('HMAC known answers', () => {
  test('session key and command MACs for the seed of the kickoff sample', () => {
    const k = deriveSessionKey(SEED);
    assert.equal(k.toString('hex'), 'a56a2c4da4f585144d78aaa82e7391e7b7b5d8a3e6f969a41a9443745da4de9a');
    assert.equal(
      signCommand(k, 1, 'navigate', 'oa.example.com', { url: 'https://oa.example.com/login' }),
      '01d2eec8cde6a78bb894897787ac7976d9c552cbd82eac8fcc740a77787e711b',
    );
    assert.equal(
      signCommand(k, 2, 'click', 'oa.example.com', { selector: '#submit' }),
      '989427abe724b9266ce50817806945af4f7abf92f5d24d60bb130d9e4cdebd41',
    );
  });

  test('MAC input is seq, action, domain, JCS(params) joined by newlines (independent computation)', () => {
    const k = deriveSessionKey(SEED);
    const params = { text: 'héllo', selector: '#q', submit: true };
    const expected = createHmac('sha256', k)
      .update('7\ntype\noa.example.com\n{"selector":"#q","submit":true,"text":"héllo"}')
      .digest('hex');
    assert.equal(signCommand(k, 7, 'type', 'oa.example.com', params), expected);
  });

  test('what the definition leaves implicit (docs/pipe-protocol.md#hmac): seed bytes, hex case, UTF-8, {}', () => {
    // The seed is hex-decoded to bytes (not used as ASCII text), and its hex case does not matter.
    const k = deriveSessionKey(SEED);
    const byHand = createHmac(
      'sha256',
      Buffer.from([
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
      ]),
    )
      .update(Buffer.from('sgclaw-session-v1', 'ascii'))
      .digest();
    assert.deepEqual(k, byHand);
    assert.deepEqual(deriveSessionKey(SEED.toUpperCase()), k);
    assert.notDeepEqual(
      createHmac('sha256', Buffer.from(SEED, 'ascii')).update('sgclaw-session-v1').digest(),
      k,
    );
    // The MAC input is UTF-8 bytes; JCS leaves non-ASCII characters unescaped.
    const params = { selector: '#user', text: '张三 ✓' };
    const input = Buffer.from('5\ntype\noa.example.com\n{"selector":"#user","text":"张三 ✓"}', 'utf8');
    assert.equal(input.length, 62, 'three bytes per CJK character and for the check mark');
    assert.equal(
      signCommand(k, 5, 'type', 'oa.example.com', params),
      createHmac('sha256', k).update(input).digest('hex'),
    );
    // The known answer quoted in the doc.
    assert.equal(
      signCommand(k, 5, 'type', 'oa.example.com', params),
      '0b42f5281410b710538bf53b40c5724e46f06c83fac53d2f5af8be28216a95b2',
    );
    // An action without parameters signs "{}" (params is required on the wire, {} when empty).
    assert.equal(
      signCommand(k, 4, 'getText', 'oa.example.com', {}),
      createHmac('sha256', k).update('4\ngetText\noa.example.com\n{}', 'utf8').digest('hex'),
    );
    assert.equal(
      signCommand(k, 4, 'getText', 'oa.example.com', {}),
      'dcce3ce8e773e11e5fdc9619aa2d9821d9d52bc5a45c3f9517ba0b191feb97ef',
    );
  });

  test('verify: key order does not matter, any change does; malformed hex fails', () => {
    const k = deriveSessionKey(SEED);
    const mac = signCommand(k, 3, 'getText', 'a.example', { selector: '#x', zombie_id: 'z1' });
    const cmd = (over: Record<string, unknown> = {}) => ({
      seq: 3,
      action: 'getText',
      params: { zombie_id: 'z1', selector: '#x' },
      security: { expected_domain: 'a.example', hmac: mac },
      ...over,
    });
    assert.equal(verifyCommand(k, cmd()), true);
    assert.equal(verifyCommand(k, cmd({ seq: 4 })), false);
    assert.equal(verifyCommand(k, cmd({ action: 'getHtml' })), false);
    assert.equal(verifyCommand(k, cmd({ params: { selector: '#y', zombie_id: 'z1' } })), false);
    assert.equal(verifyCommand(k, cmd({ security: { expected_domain: 'b.example', hmac: mac } })), false);
    assert.equal(
      verifyCommand(k, cmd({ security: { expected_domain: 'a.example', hmac: mac.toUpperCase() } })),
      false,
    );
    assert.equal(verifyCommand(k, cmd({ security: { expected_domain: 'a.example', hmac: 'zz' } })), false);
    assert.equal(verifyCommand(deriveSessionKey('ff'.repeat(16)), cmd()), false);
  });

  test('seeds: 16-128 hex digits, even length', () => {
    assert.equal(seedProblem('0123456789abcdef'), null);
    assert.equal(seedProblem('AB'.repeat(64)), null);
    assert.match(String(seedProblem('')), /must not be empty/);
    assert.ok(seedProblem('0123456789abcde'));
    assert.ok(seedProblem('a'.repeat(17)));
    assert.ok(seedProblem('ab'.repeat(65)));
    assert.ok(seedProblem('0123456789abcdeg'));
    assert.ok(seedProblem(42));
    assert.equal(
      code(() => deriveSessionKey('xyz')),
      'invalid_message',
    );
  });
});

describe('messages', () => {
  test('the kickoff samples round-trip through the schemas', () => {
    const samples = [
      '{"type":"init","version":"1.0","hmac_seed":"0123456789abcdef","capabilities":["browser_action"]}',
      '{"type":"response","seq":1,"success":true,"data":{},"aom_snapshot":[],"timing":{"queue_ms":1,"exec_ms":20}}',
      `{"type":"init_ack","version":"1.0","agent_id":"00000000-0000-0000-0000-000000000000","supported_actions":${JSON.stringify(PIPE_ACTIONS)}}`,
      '{"type":"command","seq":1,"action":"click","params":{"selector":"#submit"},"security":{"expected_domain":"oa.example.com","hmac":"00"}}',
    ];
    for (const s of samples) {
      const m = parseMessage(s);
      assert.equal(encodeLine(m), `${s}\n`);
    }
  });

  test('invalid messages name the problem', () => {
    assert.equal(
      code(() => parseMessage('not json')),
      'invalid_message',
    );
    assert.equal(
      code(() => parseMessage('[1,2]')),
      'invalid_message',
    );
    assert.equal(
      code(() =>
        parseMessage(
          '{"type":"command","seq":0,"action":"click","params":{},"security":{"expected_domain":"a","hmac":"b"}}',
        ),
      ),
      'invalid_message',
    );
    assert.equal(
      code(() =>
        parseMessage(
          '{"type":"command","seq":1.5,"action":"click","params":{},"security":{"expected_domain":"a","hmac":"b"}}',
        ),
      ),
      'invalid_message',
    );
    assert.equal(
      code(() =>
        parseMessage(
          '{"type":"command","seq":1,"action":"click","params":[],"security":{"expected_domain":"a","hmac":"b"}}',
        ),
      ),
      'invalid_message',
    );
    assert.equal(
      code(() => parseMessage('{"type":"hello"}')),
      'invalid_message',
    );
    try {
      parseMessage('{"type":"command","seq":1,"action":"click","params":{}}');
    } catch (err) {
      assert.match((err as Error).message, /security/);
    }
  });

  test('fuzz: random mutations of valid lines never throw anything but PipeError', () => {
    const base =
      '{"type":"command","seq":12,"action":"type","params":{"selector":"#q","text":"x"},"security":{"expected_domain":"a.example","hmac":"00"}}';
    let rnd = 12345;
    const next = () => {
      rnd = (rnd * 1103515245 + 12345) & 0x7fffffff;
      return rnd;
    };
    const alphabet = '{}[]":,0123456789-.eE truefalsnul\\u\n\t';
    for (let i = 0; i < 3000; i++) {
      const chars = [...base];
      const edits = 1 + (next() % 4);
      for (let e = 0; e < edits; e++) {
        const pos = next() % chars.length;
        const op = next() % 3;
        const c = alphabet[next() % alphabet.length]!;
        if (op === 0) chars[pos] = c;
        else if (op === 1) chars.splice(pos, 1);
        else chars.splice(pos, 0, c);
      }
      try {
        parseMessage(chars.join(''));
      } catch (err) {
        assert.ok(err instanceof PipeError, String(err));
        assert.equal(err.code, 'invalid_message');
      }
    }
  });

  test('encodeLine refuses a message over 1 MB', () => {
    assert.equal(
      code(() => encodeLine({ data: 'x'.repeat(MAX_LINE_BYTES) })),
      'invalid_message',
    );
  });
});

describe('line framing', () => {
  test('split chunks, CRLF, blank lines and an unterminated last line', () => {
    const d = new LineDecoder();
    const text = '{"a":1}\r\n\n{"b":"é"}\n{"c":';
    const bytes = Buffer.from(text);
    const events = [];
    for (let i = 0; i < bytes.length; i += 3) events.push(...d.push(bytes.subarray(i, i + 3)));
    events.push(...d.push(Buffer.from('3}')));
    events.push(...d.end());
    assert.deepEqual(
      events.map((e) => (e.kind === 'line' ? e.text : e.kind)),
      ['{"a":1}', '{"b":"é"}', '{"c":3}'],
    );
  });

  test('a line over the limit is skipped and reported once; the next line still arrives', () => {
    const d = new LineDecoder(100);
    const events = [
      ...d.push(Buffer.from('x'.repeat(60))),
      ...d.push(Buffer.from('x'.repeat(60))),
      ...d.push(Buffer.from(`${'y'.repeat(500)}\n{"ok":true}\n`)),
    ];
    assert.deepEqual(
      events.map((e) => e.kind),
      ['oversized', 'line'],
    );
    assert.equal(events[0]!.bytes, 620);
    const exact = new LineDecoder(10).push(Buffer.from('0123456789\n01234567890\n'));
    assert.deepEqual(
      exact.map((e) => e.kind),
      ['line', 'oversized'],
    );
  });

  test('invalid UTF-8 is reported, not decoded', () => {
    const events = new LineDecoder().push(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    assert.deepEqual(
      events.map((e) => e.kind),
      ['invalid_utf8'],
    );
  });

  test('fuzz: random chunking gives the same frames', () => {
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ i, s: '中文'.repeat(i % 7) }));
    const all = Buffer.from(`${lines.join('\n')}\n`);
    for (let trial = 0; trial < 50; trial++) {
      const d = new LineDecoder();
      const got: string[] = [];
      let pos = 0;
      while (pos < all.length) {
        const n = 1 + Math.floor(Math.random() * 40);
        for (const e of d.push(all.subarray(pos, pos + n))) if (e.kind === 'line') got.push(e.text);
        pos += n;
      }
      assert.deepEqual(got, lines);
    }
  });
});

describe('action params', () => {
  test('the four basic actions', () => {
    assert.deepEqual(parseActionParams('click', { selector: '#submit' }), { selector: '#submit' });
    assert.deepEqual(parseActionParams('type', { ref: 'e3', text: 'x', clear: true }), {
      ref: 'e3',
      text: 'x',
      clear: true,
    });
    assert.deepEqual(parseActionParams('navigate', { url: 'https://oa.example.com/login' }), {
      url: 'https://oa.example.com/login',
    });
    assert.deepEqual(parseActionParams('getText', {}), {});
  });

  test('refusals: missing or double targets, unknown fields, bad URLs', () => {
    assert.equal(
      code(() => parseActionParams('click', {})),
      'invalid_params',
    );
    assert.equal(
      code(() => parseActionParams('click', { selector: 'a', ref: 'e1' })),
      'invalid_params',
    );
    assert.equal(
      code(() => parseActionParams('click', { selector: 'a', force: true })),
      'invalid_params',
    );
    assert.equal(
      code(() => parseActionParams('navigate', { url: 'javascript:alert(1)' })),
      'invalid_params',
    );
    assert.equal(
      code(() => parseActionParams('select', { selector: 's', value: 'a', index: 1 })),
      'invalid_params',
    );
    assert.equal(
      code(() => parseActionParams('scrollTo', { x: 1 })),
      'invalid_params',
    );
    assert.equal(
      code(() => parseActionParams('zombieKill', {})),
      'invalid_params',
    );
    assert.deepEqual(parseActionParams('scrollTo', { x: 0, y: 500 }), { x: 0, y: 500 });
  });
});

describe('MAC policy', () => {
  const rules = parseRules({
    version: '1.0',
    domains: { allowed: ['oa.example.com', '*.corp.example'] },
    pipe_actions: {
      allowed: ['click', 'type', 'navigate', 'getText', 'eval'],
      blocked: ['eval', 'executeJsInPage'],
    },
    storage: { key_prefixes: ['sgclaw_'] },
    circuit_breaker: { max_failures: 3, window_ms: 1000, cooldown_ms: 500 },
  });
  const p = new MacPolicy(rules);

  test('actions: blocked wins, unknown names, not allowed', () => {
    assert.equal(p.actionRefusal('click'), null);
    assert.equal(p.actionRefusal('eval')?.code, 'action_not_allowed');
    assert.equal(p.actionRefusal('executeJsInPage')?.code, 'action_not_allowed');
    assert.equal(p.actionRefusal('fly')?.code, 'unknown_action');
    assert.equal(p.actionRefusal('getHtml')?.code, 'action_not_allowed');
    assert.deepEqual(p.allowedActions(), ['click', 'type', 'navigate', 'getText']);
  });

  test('domains: exact hosts and *.suffix (not the suffix itself)', () => {
    assert.equal(p.domainRefusal('oa.example.com'), null);
    assert.equal(p.domainRefusal('OA.example.com'), null);
    assert.equal(p.domainRefusal('a.corp.example'), null);
    assert.equal(p.domainRefusal('corp.example')?.code, 'domain_not_allowed');
    assert.equal(p.domainRefusal('evilcorp.example')?.code, 'domain_not_allowed');
    assert.equal(p.domainRefusal('oa.example.com.evil')?.code, 'domain_not_allowed');
    assert.equal(p.domainRefusal('')?.code, 'domain_not_allowed');
    assert.equal(hostMatches('*.a.b', 'x.a.b'), true);
  });

  test('storage prefixes; no prefixes means no storage', () => {
    assert.equal(p.storageKeyRefusal('sgclaw_token'), null);
    assert.equal(p.storageKeyRefusal('token')?.code, 'storage_key_not_allowed');
    const none = new MacPolicy(
      parseRules({ version: '1.0', domains: { allowed: [] }, pipe_actions: { allowed: [] } }),
    );
    assert.equal(none.storageKeyRefusal('sgclaw_x')?.code, 'storage_key_not_allowed');
  });

  test('circuit breaker: opens after max_failures in the window, closes after the cooldown', () => {
    const trips: number[] = [];
    const b = new CircuitBreaker({ max_failures: 3, window_ms: 1000, cooldown_ms: 500 }, (u) =>
      trips.push(u),
    );
    b.recordFailure(0);
    b.recordFailure(100);
    b.recordFailure(1500); // the first two fell out of the window
    assert.equal(b.openFor(1500), 0);
    b.recordFailure(1600);
    b.recordFailure(1700);
    assert.equal(b.openFor(1700), 500);
    assert.deepEqual(trips, [2200]);
    assert.equal(b.openFor(2200), 0);
    const policy = new MacPolicy(rules);
    for (let i = 0; i < 3; i++) policy.breaker.recordFailure();
    assert.equal(policy.circuitRefusal()?.code, 'circuit_open');
  });

  test('rules validation and the defaults', () => {
    assert.equal(
      code(() => parseRules({ version: '2.0', domains: { allowed: [] }, pipe_actions: { allowed: [] } })),
      'invalid_params',
    );
    assert.equal(
      code(() =>
        parseRules({ version: '1.0', domains: { allowed: ['http://x'] }, pipe_actions: { allowed: [] } }),
      ),
      'invalid_params',
    );
    const d = new MacPolicy(DEFAULT_RULES);
    assert.deepEqual(d.allowedActions(), [...PIPE_ACTIONS]);
    assert.equal(d.domainRefusal('127.0.0.1'), null);
    assert.equal(d.domainRefusal('example.com')?.code, 'domain_not_allowed');
  });
});
