import type { Rand } from './rand.js';

/**
 * Building blocks every door's fuzz input uses: hostile strings and numbers,
 * random JSON values, and byte-level garbage. None contains a raw newline
 * (line-based doors frame on it); the doors add newlines on purpose.
 */

export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  '\t\r',
  '中文',
  '😀',
  '\ud800',
  '{{x}}',
  '../../etc/passwd',
  'about:blank',
  'javascript:alert(1)',
  'file:///etc/hostname',
  'http://127.0.0.1:1/',
  '<script>alert(1)</script>',
  '9'.repeat(40),
  'e12',
  '#id',
  'body',
  '__proto__',
  'constructor',
  'null',
  'true',
  '%00%ff',
  'x'.repeat(3000),
];

export const NASTY_NUMBERS: readonly number[] = [
  0,
  -1,
  1,
  2,
  1.5,
  -0.5,
  255,
  65_536,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  1e20,
  -1e20,
  1e308,
  5e-324,
];

export function nastyString(r: Rand): string {
  return r.chance(0.8) ? r.pick(NASTY_STRINGS) : randomText(r, r.int(40));
}

/** Printable and odd characters, no newline. */
export function randomText(r: Rand, length: number): string {
  const alphabet = 'abcXYZ019 _-.:/\\"\'{}[],;=+*&%$#@!?<>|`~\u00e9\u4e2d\u0001\u007f\u2028';
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[r.int(alphabet.length)];
  return s;
}

/** Sets an own property, even "__proto__" (as JSON.parse does), never the prototype. */
export function setKey(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A random JSON value; objects use `keys` (the door's field names) most of the time. */
export function jsonValue(r: Rand, keys: readonly string[] = [], depth = 0): unknown {
  const k = r.int(depth > 2 ? 6 : 9);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick(NASTY_NUMBERS);
    case 3:
    case 4:
      return nastyString(r);
    case 5:
      return r.int(200) - 100;
    case 6:
      return Array.from({ length: r.int(4) }, () => jsonValue(r, keys, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < r.int(5); i++) {
        const key = keys.length && r.chance(0.8) ? r.pick(keys) : nastyString(r);
        setKey(o, key, jsonValue(r, keys, depth + 1));
      }
      return o;
    }
  }
}

/** Text that is not JSON, or is JSON in an unusual shape (deep nesting, junk around it). */
export function garbageText(r: Rand, valid: string): string {
  switch (r.int(9)) {
    case 0:
      return valid.slice(0, r.int(valid.length));
    case 1: {
      const at = r.int(valid.length + 1);
      return valid.slice(0, at) + randomText(r, 1 + r.int(3)) + valid.slice(at);
    }
    case 2:
      return `${valid}${valid}`;
    case 3: {
      const depth = r.pick([100, 1000, 10_000]);
      return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    }
    case 4: {
      const depth = r.pick([100, 10_000]);
      return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    }
    case 5:
      return r.pick([
        '{',
        '}',
        '[',
        '"',
        'nul',
        'NaN',
        'Infinity',
        '-',
        '1e',
        "{'a':1}",
        '{"a":1,}',
        '\ufeff{}',
      ]);
    case 6:
      return randomText(r, r.int(60));
    case 7:
      return `  ${valid}  `;
    default:
      return valid.replace(/"/g, r.pick(["'", '', '\\"']));
  }
}

/** Bytes that are not valid UTF-8 (no newline byte). */
export function invalidUtf8(r: Rand): Buffer {
  const junk = [0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf8];
  return Buffer.from([0x7b, ...Array.from({ length: 1 + r.int(6) }, () => r.pick(junk)), 0x7d]);
}
