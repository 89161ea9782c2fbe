import type { RequestLogEvent } from '../backends/backend.js';
import { Deadline, type OperationOptions } from './deadline.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';
import type { SecretRegistry } from './semantics/secret-registry.js';

/**
 * The session's request log: every request of every page, correlated by
 * request identity (never by URL, so three calls to the same URL stay three
 * entries), with xhr/fetch response bodies copied when they arrive.
 */
export interface RequestEntry {
  /** Unique in the session, never reused: "r1", "r2", … */
  request_id: string;
  seq: number;
  page_id: string;
  requested_at: number;
  method: string;
  url: string;
  resource_type: string;
  is_navigation: boolean;
  post_data: string | null;
  post_data_length: number;
  post_data_truncated: boolean;
  status: number | null;
  status_text: string | null;
  mime_type: string | null;
  responded_at: number | null;
  failure: string | null;
  finished_at: number | null;
  state: 'pending' | 'responded' | 'finished' | 'failed';
  /** A body copy is kept (xhr/fetch, the last MAX_BODIES). */
  body_available: boolean;
  body_length: number | null;
  body_truncated: boolean;
}

export const MAX_POST_DATA = 4000;
export const MAX_ENTRIES = 1000;
export const MAX_BODIES = 100;
export const MAX_BODY_CHARS = 100_000;
const BODY_TYPES = new Set(['xhr', 'fetch']);

export interface RequestFilter {
  /** URL substring, then glob (`*` and `**` both cross "/"), or /regex/. */
  filter?: string;
  resource_type?: string;
  page_id?: string;
  /** Only requests made at or after this epoch ms. */
  since?: number;
  /** Only requests after this seq. */
  since_seq?: number;
  limit?: number;
}

/** Substring first; then glob where * and ** cross "/"; "/…/flags" is a regex. */
export function urlMatcher(pattern: string): (url: string) => boolean {
  const re = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (re) {
    let rx: RegExp;
    try {
      rx = new RegExp(re[1]!, re[2]);
    } catch {
      throw new TabwrightError('invalid_request', `"${pattern}" is not a valid regular expression.`, {
        details: { field: 'filter' },
      });
    }
    return (u) => rx.test(u);
  }
  const glob = new RegExp(
    `^${pattern
      .split(/\*+/)
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}([?#].*)?$`,
  );
  return (u) => u.includes(pattern) || glob.test(u);
}

export class NetworkLog {
  private seq = 0;
  private readonly entries: RequestEntry[] = [];
  private readonly byKey = new WeakMap<object, RequestEntry>();
  private readonly bodies = new Map<string, string>();
  /** Bumped by every change of an entry's state or status, or of which entries the log holds. */
  private version = 0;
  /** failedUrls' last answer per page and resource type, valid while `version` stays the same. */
  private readonly failedCache = new Map<string, { version: number; urls: string[] }>();

  /** What the log holds now (bounded by MAX_ENTRIES and MAX_BODIES): for the engine's counts. */
  get size(): { entries: number; bodies: number } {
    return { entries: this.entries.length, bodies: this.bodies.size };
  }
  private readonly listeners = new Set<(e: RequestEntry) => void>();
  recording: boolean;
  readonly recordedSince: number;

  /**
   * `secrets`: the session's registry. Entries are records: what leaves the log has secret values,
   * secret URL parameters and secret form fields masked (semantics/secret-registry.ts); URL filters
   * match the URLs as the page requested them.
   */
  constructor(
    recording = true,
    private readonly secrets?: SecretRegistry,
  ) {
    this.recording = recording;
    this.recordedSince = Date.now();
  }

  /** An entry as it leaves the log. */
  private out<T extends RequestEntry>(e: T): T {
    const s = this.secrets;
    if (!s) return { ...e };
    const copy = { ...e, url: s.scrubUrl(e.url) };
    if (e.post_data !== null) copy.post_data = s.scrubBody(e.post_data);
    return s.scrubRecord(copy);
  }

  watch(page: Page): void {
    page.backend.onRequestLog((e) => {
      if (this.recording) this.onEvent(page.id, e);
    });
  }

  private onEvent(pageId: string, e: RequestLogEvent): void {
    this.version++;
    if (e.phase === 'request') {
      const post = e.postData;
      const entry: RequestEntry = {
        request_id: `r${++this.seq}`,
        seq: this.seq,
        page_id: pageId,
        requested_at: Date.now(),
        method: e.method,
        url: e.url,
        resource_type: e.resourceType,
        is_navigation: e.isNavigation,
        post_data: post === null ? null : post.slice(0, MAX_POST_DATA),
        post_data_length: post?.length ?? 0,
        post_data_truncated: (post?.length ?? 0) > MAX_POST_DATA,
        status: null,
        status_text: null,
        mime_type: null,
        responded_at: null,
        failure: null,
        finished_at: null,
        state: 'pending',
        body_available: false,
        body_length: null,
        body_truncated: false,
      };
      this.byKey.set(e.key, entry);
      this.entries.push(entry);
      if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
      return;
    }
    const entry = this.byKey.get(e.key);
    if (!entry) return;
    if (e.phase === 'response') {
      entry.status = e.status;
      entry.status_text = e.statusText;
      entry.mime_type = e.mimeType;
      entry.responded_at = Date.now();
      entry.state = 'responded';
      this.emit(entry);
    } else if (e.phase === 'failed') {
      entry.failure = e.errorText;
      entry.finished_at = Date.now();
      entry.state = 'failed';
      this.emit(entry);
    } else {
      entry.finished_at = Date.now();
      if (BODY_TYPES.has(entry.resource_type)) {
        void e.readBody().then((buf) => {
          if (buf) this.keepBody(entry, buf.toString('utf8'));
          entry.state = 'finished';
          this.version++;
          this.emit(entry);
        });
      } else {
        entry.state = 'finished';
        this.emit(entry);
      }
    }
  }

  private keepBody(entry: RequestEntry, body: string): void {
    entry.body_length = body.length;
    entry.body_truncated = body.length > MAX_BODY_CHARS;
    entry.body_available = true;
    this.bodies.set(entry.request_id, body.slice(0, MAX_BODY_CHARS));
    while (this.bodies.size > MAX_BODIES) {
      const oldest = this.bodies.keys().next().value as string;
      this.bodies.delete(oldest);
      const e = this.entries.find((x) => x.request_id === oldest);
      if (e) e.body_available = false;
    }
  }

  private emit(e: RequestEntry): void {
    for (const l of this.listeners) l(e);
  }

  list(f: RequestFilter = {}): RequestEntry[] {
    const match = f.filter ? urlMatcher(f.filter) : () => true;
    let out = this.entries.filter(
      (e) =>
        match(e.url) &&
        (!f.resource_type || e.resource_type === f.resource_type) &&
        (!f.page_id || e.page_id === f.page_id) &&
        (f.since === undefined || e.requested_at >= f.since) &&
        (f.since_seq === undefined || e.seq > f.since_seq),
    );
    if (f.limit !== undefined) out = out.slice(-Math.max(0, f.limit));
    return out.map((e) => this.out(e));
  }

  /**
   * URLs of one page's requests of one resource type that failed or got an error status, as the
   * page requested them (internal: never leaves the engine). The snapshot uses it for stylesheets:
   * a link's `error` event alone cannot tell a sheet that never loaded from one whose @import failed.
   */
  failedUrls(pageId: string, resourceType: string): string[] {
    // Asked by every snapshot: the scan of up to MAX_ENTRIES entries is redone only after a change.
    const key = `${pageId}\n${resourceType}`;
    const hit = this.failedCache.get(key);
    if (hit && hit.version === this.version) return [...hit.urls];
    const out = new Set<string>();
    for (const e of this.entries)
      if (
        e.page_id === pageId &&
        e.resource_type === resourceType &&
        (e.state === 'failed' || (e.status ?? 0) >= 400)
      )
        out.add(e.url);
    const urls = [...out];
    if (this.failedCache.size > 64) this.failedCache.clear();
    this.failedCache.set(key, { version: this.version, urls });
    return [...urls];
  }

  inflight(): number {
    return this.entries.filter((e) => e.state === 'pending' || e.state === 'responded').length;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** One entry with its body (cut at `max_chars`, default 20000). */
  body(
    requestId: string,
    maxChars = 20_000,
  ): RequestEntry & { body: string | null; returned_truncated: boolean } {
    const e = this.entries.find((x) => x.request_id === requestId);
    if (!e) {
      throw new TabwrightError(
        'invalid_request',
        `No request ${requestId} in this session's log (the last ${MAX_ENTRIES} are kept). List requests first.`,
        {
          details: { field: 'request_id', request_id: requestId },
        },
      );
    }
    const body = this.bodies.get(requestId) ?? null;
    const cut = body === null ? null : body.slice(0, maxChars);
    return {
      ...this.out(e),
      body: cut === null || !this.secrets ? cut : this.secrets.scrubText(cut),
      returned_truncated: body !== null && body.length > maxChars,
    };
  }

  /**
   * The first response matching `pattern` received within the last
   * `look_back_ms` (so "click, then wait" works written in that order), else
   * the next one to arrive before the deadline. Bodies of xhr/fetch responses
   * are in the log by the time this resolves.
   */
  async waitForResponse(
    pattern: string,
    opts: OperationOptions & { look_back_ms?: number; page_id?: string } = {},
  ): Promise<RequestEntry & { from_look_back: boolean }> {
    const d = Deadline.from(opts);
    const match = urlMatcher(pattern);
    const done = (e: RequestEntry) =>
      match(e.url) &&
      (!opts.page_id || e.page_id === opts.page_id) &&
      (e.state === 'finished' || e.state === 'failed');
    const lookBack = opts.look_back_ms ?? 10_000;
    // A response that already arrived (its body may still be being copied) counts as a look-back hit.
    let pinned: RequestEntry | undefined;
    if (lookBack > 0) {
      const since = Date.now() - lookBack;
      pinned = [...this.entries]
        .reverse()
        .find(
          (e) =>
            match(e.url) &&
            (!opts.page_id || e.page_id === opts.page_id) &&
            e.state !== 'pending' &&
            (e.responded_at ?? e.finished_at ?? 0) >= since,
        );
      if (pinned && done(pinned)) return { ...this.out(pinned), from_look_back: true };
    }
    const fromLookBack = pinned !== undefined;
    return new Promise((resolve, reject) => {
      const l = (e: RequestEntry) => {
        if (!done(e) || (pinned && e !== pinned)) return;
        cleanup();
        resolve({ ...this.out(e), from_look_back: fromLookBack });
      };
      const onAbort = () => {
        cleanup();
        reject(
          new TabwrightError(
            'not_ready',
            `No response matching "${pattern}" arrived within ${d.timeoutMs} ms. Check the pattern against network.list, or wait longer.`,
            { retryable: true, details: { reason: 'wait_timeout', pattern, timeout_ms: d.timeoutMs } },
          ),
        );
      };
      const cleanup = () => {
        this.listeners.delete(l);
        d.signal.removeEventListener('abort', onAbort);
      };
      this.listeners.add(l);
      d.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
