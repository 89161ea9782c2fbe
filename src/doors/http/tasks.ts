import type { Session } from '../../engine/session.js';

/** One logical browser instance of the HTTP door, addressed by the envelope id; backed by one engine session. */
export interface Task {
  readonly id: string;
  readonly startedAt: number;
  /** Set once `start` finished; undefined while the session is being created. */
  session?: Session;
  readonly profile: string | null;
  readonly headless: boolean;
  readonly lock: TaskLock;
  /** Last `shot-N.png` number used in this task's data directory. */
  shotCounter: number;
  /** Evidence counter (reference §7.1): shared by automatic screenshots and state files. */
  seq?: number;
  /** The index → element mapping of the last get_browser_state (reference §9.9). */
  snapshot?: IndexSnapshot;
  /** Door-side per-task state of other method families (dialogs, console marks, …). */
  extra: Record<string, unknown>;
}

/** One get_browser_state: index N is `refs[N]`, an engine element ref pinned by identity. */
export interface IndexSnapshot {
  pageId: string;
  refs: string[];
  /** Per index: what the line showed (receipts' `hit`, get_interactive_map). */
  info: { tag: string; text: string; role: string; name: string; frame?: string; selector?: string }[];
  /** The rendered text lines (diff_dom_text). */
  lines: string[];
  at: number;
}

/**
 * One command per task at a time (reference §6.1). `acquire` waits up to
 * `timeoutMs` for the running command; waiters are served in arrival order,
 * and a waiter that gave up leaves the queue without ever running.
 */
export class TaskLock {
  private held = false;
  private waiters: (() => void)[] = [];

  get busy(): boolean {
    return this.held;
  }

  acquire(timeoutMs: number): Promise<boolean> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== grant);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(grant);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}

/** The in-memory task table. Lost on restart, as upstream. */
export class TaskTable {
  private readonly byId = new Map<string, Task>();

  get(id: string): Task | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Reserves an id (synchronously, so two concurrent starts of one id cannot both win). */
  reserve(id: string, init: { profile: string | null; headless: boolean; shotCounter: number }): Task {
    const task: Task = { id, startedAt: Date.now(), lock: new TaskLock(), extra: {}, ...init };
    this.byId.set(id, task);
    return task;
  }

  remove(id: string): Task | undefined {
    const t = this.byId.get(id);
    this.byId.delete(id);
    return t;
  }

  all(): Task[] {
    return [...this.byId.values()];
  }
}

const NUMERIC = /^[0-9]{1,30}$/;

/**
 * Normalizes an envelope id: a non-negative integer or a numeric string,
 * returned as a canonical decimal string (no leading zeros). Undefined when
 * the value is not an id.
 */
export function normalizeTaskId(raw: unknown): string | undefined {
  if (typeof raw === 'number') {
    return Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : undefined;
  }
  if (typeof raw === 'bigint') return raw >= 0n ? raw.toString() : undefined;
  if (typeof raw === 'string') {
    const s = raw.trim();
    return NUMERIC.test(s) ? BigInt(s).toString() : undefined;
  }
  return undefined;
}
