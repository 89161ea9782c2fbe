import { type FoundSecrets, isSecretParam, maskParams, maskUrl, maskUrlsIn, REDACTED } from './secrets.js';

/**
 * The Node half of the secret rule (secrets.ts): a per-session registry of secret values and the
 * one scrub applied to every output.
 *
 * What goes in: text an action typed or filled into a secret field (the action pipeline knows
 * the target's reason), and the values secret fields of the page hold, whenever a snapshot or a
 * read sees them; with the `name` of their fields (form posts are masked by field name too).
 * Values shorter than MIN_SECRET_CHARS are not replaced in free text (a three-digit CVC would
 * eat every "123"); they are still redacted at the source and masked by field name.
 *
 * What comes out: `scrub` (values, in the encodings they travel in: as typed, JSON-escaped,
 * URL- and form-encoded, HTML-escaped) for page outputs; `scrubRecord` (values, and secret URL
 * parameters in every URL-looking string) for records: receipts, request logs, blocked requests,
 * console entries, recordings; `scrubBody` for request bodies. The page's own current URL and its
 * link hrefs are page outputs, not records: an agent navigates with them (docs/engine-signals.md).
 */

export const MIN_SECRET_CHARS = 4;
const MAX_VALUES = 500;
const MAX_NAMES = 200;

/** Every live registry: process-wide outputs (stderr logs, trace files) are scrubbed with all of them. */
const live = new Set<SecretRegistry>();

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The forms a value takes in outputs: as is, inside JSON strings, URL-, form- and HTML-encoded. */
function encodings(v: string): string[] {
  const out = new Set([v]);
  out.add(JSON.stringify(v).slice(1, -1));
  const uri = encodeURIComponent(v);
  out.add(uri);
  out.add(uri.replace(/%20/g, '+'));
  out.add(v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
  return [...out].filter((x) => x.length >= MIN_SECRET_CHARS);
}

type Transform = (s: string) => string;

/**
 * How deep `mapStrings` follows nesting (a guard against runaway structures, not a budget): a snapshot
 * model is two levels per node (node, children), and real pages nest well past 32 nodes.
 */
const MAX_SCRUB_DEPTH = 4096;

/** Applies `f` to every string in plain objects and arrays; copies only what changed (same reference otherwise). */
function mapStrings<T>(value: T, f: Transform, depth = 0): T {
  if (typeof value === 'string') return f(value) as T;
  if (value === null || typeof value !== 'object' || depth > MAX_SCRUB_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = mapStrings(value[i], f, depth + 1);
      if (v !== value[i]) {
        out ??= value.slice();
        out[i] = v;
      }
    }
    return (out ?? value) as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // class instances, Buffers: left alone
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const before = (value as Record<string, unknown>)[key];
    const after = mapStrings(before, f, depth + 1);
    if (after !== before) {
      out ??= { ...(value as Record<string, unknown>) };
      out[key] = after;
    }
  }
  return (out ?? value) as T;
}

export class SecretRegistry {
  private readonly values = new Set<string>();
  private readonly fieldNames = new Set<string>();
  private matcher: RegExp | null = null;
  private stale = false;

  constructor() {
    live.add(this);
  }

  /** Stops taking part in process-wide scrubbing (the session closed). */
  dispose(): void {
    live.delete(this);
  }

  /** How many values are registered (tests, diagnostics). */
  get size(): number {
    return this.values.size;
  }

  /** Names of secret fields seen (form bodies are masked by them). */
  get names(): ReadonlySet<string> {
    return this.fieldNames;
  }

  /** Remembers a secret value, the whole and line by line, and the name of the field holding it. */
  add(value: string | null | undefined, name?: string | null): void {
    if (name && !this.fieldNames.has(name) && this.fieldNames.size < MAX_NAMES) this.fieldNames.add(name);
    if (typeof value !== 'string') return;
    const parts = new Set([value, value.trim(), ...value.split(/\r?\n/).map((l) => l.trim())]);
    for (const p of parts) {
      if (p.length < MIN_SECRET_CHARS || p === REDACTED) continue;
      for (const e of encodings(p)) {
        if (this.values.has(e)) continue;
        this.values.add(e);
        this.stale = true;
      }
    }
    while (this.values.size > MAX_VALUES) this.values.delete(this.values.values().next().value as string);
  }

  /** Remembers what a page function found (collectSecrets). */
  addFound(found: FoundSecrets | null | undefined): void {
    if (!found) return;
    for (const n of found.names ?? []) this.add(null, n);
    for (const v of found.values ?? []) this.add(v);
  }

  /** Registered values in `s` replaced by REDACTED (longest first). */
  scrubText = (s: string): string => {
    if (this.values.size === 0 || s.length < MIN_SECRET_CHARS) return s;
    if (this.stale || !this.matcher) {
      const sorted = [...this.values].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.matcher = new RegExp(sorted.join('|'), 'g');
      this.stale = false;
    }
    this.matcher.lastIndex = 0;
    return this.matcher.test(s) ? s.replace(this.matcher, REDACTED) : s;
  };

  /** A URL with registered values and secret parameters (by the rule, or by a secret field's name) masked. */
  scrubUrl = (url: string): string => this.scrubText(maskUrl(url));

  /** Page outputs (snapshots, reads, eval results): every string scrubbed of registered values. */
  scrub<T>(value: T): T {
    if (this.values.size === 0) return value;
    return mapStrings(value, this.scrubText);
  }

  /** Records (receipts, logs, events): registered values, and secret parameters of every URL in them. */
  scrubRecord<T>(value: T): T {
    return mapStrings(value, (s) => this.scrubText(maskUrlsIn(s)));
  }

  /**
   * A request body: registered values, then the fields of secret names (the rule's words and the
   * names of secret fields seen) in form-encoded, multipart and JSON bodies.
   */
  scrubBody(body: string): string {
    let out = this.scrubText(body);
    const secretName = (n: string) => isSecretParam(n) || this.fieldNames.has(n);
    if (/^[^\s=&{[<]+=[^\s]*$/.test(out.trim())) out = maskParams(out, this.fieldNames);
    // multipart/form-data: a part's name, a blank line, its value up to the boundary line.
    out = out.replace(
      /(content-disposition:\s*form-data;\s*name="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([\s\S]*?)(?=\r?\n--)/gi,
      (all, head: string, name: string, value: string) =>
        value && secretName(name) && !/filename=/i.test(head) ? `${head}${REDACTED}` : all,
    );
    // JSON: "name": "value" pairs of secret names (numbers too: a PIN, a CVC).
    if (/^\s*[{[]/.test(out)) {
      out = out.replace(
        /"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*)/g,
        (all, name: string, colon: string, value: string) =>
          value !== '""' && secretName(name) ? `"${name}"${colon}"${REDACTED}"` : all,
      );
    }
    return out;
  }
}

/** Text written where every session's secrets must be masked (stderr logs, trace files): all registries, and URLs. */
export function scrubEverywhere(text: string): string {
  let out = maskUrlsIn(text);
  for (const r of live) out = r.scrubText(out);
  return out;
}
