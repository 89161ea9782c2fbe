import type { BackendConsoleMessage, BackendPage } from '../backends/backend.js';
import type { SecretRegistry } from './semantics/secret-registry.js';

export interface ConsoleEntry {
  /** Increases per page; callers ask for entries after the seq they saw last. */
  seq: number;
  type: 'console' | 'pageerror';
  level: 'debug' | 'log' | 'info' | 'warning' | 'error';
  text: string;
  url: string;
  line: number | null;
  at: string;
}

const KEEP = 500;
const MAX_TEXT = 4000;

function level(l: string): ConsoleEntry['level'] {
  if (l === 'warning' || l === 'warn') return 'warning';
  if (l === 'error' || l === 'assert') return 'error';
  if (l === 'debug' || l === 'trace') return 'debug';
  if (l === 'info') return 'info';
  return 'log';
}

/** The console messages and uncaught errors of one page (the last 500; long texts cut at 4000 chars). */
export class PageConsole {
  private seq = 0;
  private readonly entries: ConsoleEntry[] = [];

  /** `secrets`: the session's registry; entries leave with secret values and URL parameters masked. */
  constructor(
    backend: BackendPage,
    private readonly secrets?: SecretRegistry,
  ) {
    backend.onConsole((m) => this.add(m));
  }

  private add(m: BackendConsoleMessage): void {
    this.entries.push({
      seq: ++this.seq,
      type: m.type,
      level: level(m.level),
      text:
        m.text.length > MAX_TEXT
          ? `${m.text.slice(0, MAX_TEXT)}… [${m.text.length - MAX_TEXT} more chars]`
          : m.text,
      url: m.url,
      line: m.line,
      at: new Date().toISOString(),
    });
    if (this.entries.length > KEEP) this.entries.splice(0, this.entries.length - KEEP);
  }

  /** Entries kept now (at most KEEP). */
  get size(): number {
    return this.entries.length;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Entries after `since_seq`, optionally of one level, the last `limit` of them. */
  list(opts: { since_seq?: number; limit?: number; level?: string } = {}): ConsoleEntry[] {
    let out = this.entries.filter((e) => e.seq > (opts.since_seq ?? 0));
    if (opts.level) out = out.filter((e) => e.level === level(opts.level!));
    if (opts.limit !== undefined) out = out.slice(-Math.max(0, opts.limit));
    return this.secrets ? this.secrets.scrubRecord(out) : out;
  }

  clear(): void {
    this.entries.length = 0;
  }
}
