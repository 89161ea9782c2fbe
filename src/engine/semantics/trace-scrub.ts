import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Fflate from 'fflate';
import type { SecretRegistry } from './secret-registry.js';
import { scrubEverywhere } from './secret-registry.js';
import { isSecretParam, REDACTED } from './secrets.js';

/**
 * Playwright traces through the secret rule. A trace zip holds the actions with their parameters
 * (the text an insertText sent), DOM snapshots (input values included), network entries (request
 * bodies, URLs) and resources (response bodies, images). After the backend writes it, every text
 * entry is rewritten: secret values of every live session and secret URL parameters masked;
 * network entries also by secret field name (query, form, body) and credential headers and cookies. Images (screenshots, screencast frames) cannot be
 * scrubbed: callers that record for someone else record without screenshots (the JS door does).
 */

/** True when the bytes are text worth scrubbing (no NUL byte in the first 4 KiB). */
function isText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return false;
  return true;
}

type NameValue = { name?: string; value?: string };
interface HarRequest {
  queryString?: NameValue[];
  headers?: NameValue[];
  cookies?: NameValue[];
  postData?: { text?: string; params?: NameValue[] };
}

/** Headers whose values are credentials (a trace is handed to others). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** Masks the values of secret-named pairs; the values masked are added to `found` (to scrub them elsewhere). */
function maskPairs(
  pairs: NameValue[] | undefined,
  secret: (name: string) => boolean,
  found?: Set<string>,
): void {
  for (const p of pairs ?? []) {
    if (p.value && p.name && secret(p.name)) {
      if (p.value !== REDACTED) found?.add(p.value);
      p.value = REDACTED;
    }
  }
}

/** Values shorter than this are not hunted for in other entries (too likely to match unrelated text). */
const MIN_ECHOED_SECRET = 4;

/**
 * One trace.network line (a HAR entry): query parameters and form fields of secret names, the
 * request body by field name, credential headers and cookies masked. The text-wide scrub after it
 * takes the values.
 */
function scrubNetworkLine(line: string, registry: SecretRegistry, found: Set<string>): string {
  if (!line.startsWith('{')) return line;
  try {
    const entry = JSON.parse(line) as {
      snapshot?: { request?: HarRequest; response?: { headers?: NameValue[]; cookies?: NameValue[] } };
    };
    const req = entry.snapshot?.request;
    if (!req) return line;
    const secretName = (n: string) => isSecretParam(n) || registry.names.has(n);
    const header = (n: string) => CREDENTIAL_HEADERS.has(n.toLowerCase());
    maskPairs(req.queryString, secretName, found);
    maskPairs(req.postData?.params, secretName, found);
    if (req.postData && typeof req.postData.text === 'string')
      req.postData.text = registry.scrubBody(req.postData.text);
    maskPairs(req.headers, header);
    maskPairs(entry.snapshot?.response?.headers, header);
    maskPairs(req.cookies, () => true);
    maskPairs(entry.snapshot?.response?.cookies, () => true);
    return JSON.stringify(entry);
  } catch {
    return line;
  }
}

let fflate: typeof Fflate | undefined;
/**
 * fflate, required at the first trace scrubbed rather than imported with the engine: its module
 * builds its Huffman tables at load (≈ 0.4 MB of V8 heap), and most processes never record a trace
 * (docs/ARCHITECTURE.md, a lean Node side). Its CommonJS build (the package's `require` condition);
 * nothing else in the process loads fflate.
 */
function zip(): typeof Fflate {
  fflate ??= createRequire(import.meta.url)('fflate') as typeof Fflate;
  return fflate;
}

/** Rewrites the trace zip at `path` in place; returns how many entries changed. */
export function scrubTraceFile(path: string, registry: SecretRegistry): number {
  const { strFromU8, strToU8, unzipSync, zipSync } = zip();
  const entries = unzipSync(readFileSync(path));
  const out: Fflate.Zippable = {};
  let changed = 0;
  // Network entries first: the secret query and form values they carry are masked wherever else
  // they show (a response body or DOM snapshot that echoes the request URL).
  const texts = new Map<string, string>();
  const found = new Set<string>();
  for (const [name, bytes] of Object.entries(entries)) {
    if (!isText(bytes)) continue;
    let text = strFromU8(bytes);
    if (name.endsWith('.network'))
      text = text
        .split('\n')
        .map((l) => scrubNetworkLine(l, registry, found))
        .join('\n');
    texts.set(name, text);
  }
  const echoed = [...found].filter((v) => v.length >= MIN_ECHOED_SECRET).sort((a, b) => b.length - a.length);
  for (const [name, bytes] of Object.entries(entries)) {
    const scrubbed = texts.get(name);
    if (scrubbed === undefined) {
      out[name] = [bytes, { level: 0 }];
      continue;
    }
    const before = strFromU8(bytes);
    let text = scrubEverywhere(scrubbed);
    for (const v of echoed) text = replaceEncodings(text, v);
    if (text !== before) changed++;
    out[name] = [strToU8(text), { level: 6 }];
  }
  writeFileSync(path, zipSync(out));
  return changed;
}

/** Replaces a value and its URL-encoded forms with the mask. */
function replaceEncodings(text: string, value: string): string {
  let out = text;
  for (const form of new Set([
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
  ]))
    out = out.split(form).join(REDACTED);
  return out;
}
