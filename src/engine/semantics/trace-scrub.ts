import { readFileSync, writeFileSync } from 'node:fs';
import { strFromU8, strToU8, unzipSync, type Zippable, zipSync } from 'fflate';
import type { SecretRegistry } from './secret-registry.js';
import { scrubEverywhere } from './secret-registry.js';

/**
 * Playwright traces through the secret rule. A trace zip holds the actions with their parameters
 * (the text an insertText sent), DOM snapshots (input values included), network entries (request
 * bodies, URLs) and resources (response bodies, images). After the backend writes it, every text
 * entry is rewritten: secret values of every live session and secret URL parameters masked,
 * request bodies also by secret field name. Images (screenshots, screencast frames) cannot be
 * scrubbed: callers that record for someone else record without screenshots (the JS door does).
 */

/** True when the bytes are text worth scrubbing (no NUL byte in the first 4 KiB). */
function isText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return false;
  return true;
}

/** One trace.network line: the request body masked by field name too (JSON-escaped in place). */
function scrubNetworkLine(line: string, registry: SecretRegistry): string {
  if (!line.includes('"postData"')) return line;
  try {
    const entry = JSON.parse(line) as { snapshot?: { request?: { postData?: { text?: string } } } };
    const post = entry.snapshot?.request?.postData;
    if (post && typeof post.text === 'string') {
      post.text = registry.scrubBody(post.text);
      return JSON.stringify(entry);
    }
  } catch {}
  return line;
}

/** Rewrites the trace zip at `path` in place; returns how many entries changed. */
export function scrubTraceFile(path: string, registry: SecretRegistry): number {
  const entries = unzipSync(readFileSync(path));
  const out: Zippable = {};
  let changed = 0;
  for (const [name, bytes] of Object.entries(entries)) {
    if (!isText(bytes)) {
      out[name] = [bytes, { level: 0 }];
      continue;
    }
    let text = strFromU8(bytes);
    const before = text;
    if (name.endsWith('.network'))
      text = text
        .split('\n')
        .map((l) => scrubNetworkLine(l, registry))
        .join('\n');
    text = scrubEverywhere(text);
    if (text !== before) changed++;
    out[name] = [strToU8(text), { level: 6 }];
  }
  writeFileSync(path, zipSync(out));
  return changed;
}
