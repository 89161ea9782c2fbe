import { randomBytes } from 'node:crypto';

/**
 * The door's printed refs: opaque 17-character tokens (`s` + 16 of
 * [A-Za-z0-9_]) standing for the engine's refs. Stricter lifetime than the
 * engine's: a page's tokens are valid only until its next snapshot, raw call,
 * action or document change; then every earlier token is `stale`, even when
 * the element is still there. Tokens are never derived from element ids.
 */
export const TOKEN_PATTERN = /^s[A-Za-z0-9_]{16}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';

/**
 * Random bytes drawn 4 KiB at a time, each byte used once: a snapshot prints a token per ref
 * (hundreds on a large page), and one `randomBytes` call per token was a system call each, about
 * a fifth of the door's own time per snapshot (CPU profile of the daemon, docs/benchmarks.md).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function newToken(): string {
  if (poolAt + 16 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  let s = 's';
  for (let i = poolAt; i < poolAt + 16; i++) s += ALPHABET[pool[i]! % ALPHABET.length];
  poolAt += 16;
  return s;
}

export type RefLookup =
  | { ok: true; engineRef: string }
  | { ok: false; reason: 'ref_expired' | 'unknown_ref' };

export class RefTokens {
  private current = new Map<string, string>();
  private byEngine = new Map<string, string>();
  private readonly expired = new Set<string>();

  /** Expires every token (a snapshot, raw call, action or document change happened). */
  expireAll(): void {
    for (const t of this.current.keys()) this.expired.add(t);
    if (this.expired.size > 50_000) this.expired.clear();
    this.current = new Map();
    this.byEngine = new Map();
  }

  /** Starts a new generation: old tokens expire, then engine refs get new tokens on demand. */
  begin(): void {
    this.expireAll();
  }

  tokenFor(engineRef: string): string {
    let t = this.byEngine.get(engineRef);
    if (!t) {
      t = newToken();
      this.byEngine.set(engineRef, t);
      this.current.set(t, engineRef);
    }
    return t;
  }

  /** The current token of an engine ref, if one was printed in this generation. */
  peek(engineRef: string): string | undefined {
    return this.byEngine.get(engineRef);
  }

  lookup(token: string): RefLookup {
    const engineRef = this.current.get(token);
    if (engineRef) return { ok: true, engineRef };
    return { ok: false, reason: this.expired.has(token) ? 'ref_expired' : 'unknown_ref' };
  }

  /** Replaces engine refs in snapshot or diff text with tokens of the current generation. */
  rewrite(text: string, issue: boolean): string {
    return text
      .replace(/\[ref=(e\d+)\]/g, (_m, r: string) => {
        const t = issue ? this.tokenFor(r) : this.peek(r);
        return t ? `[ref=${t}]` : '';
      })
      .replace(/\((in|moved to) (e\d+)\)/g, (_m, w: string, r: string) => {
        const t = this.peek(r);
        return t ? `(${w} ${t})` : `(${w} …)`;
      });
  }
}
