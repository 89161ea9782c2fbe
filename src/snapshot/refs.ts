import type { BackendFrame } from '../backends/backend.js';
import type { Deadline } from '../engine/deadline.js';
import { TabwrightError } from '../engine/errors.js';
import type { Page } from '../engine/page.js';
import type { Session } from '../engine/session.js';
import { pageCall, type RefCallResult, refFunction } from './page-functions.js';

/**
 * Element refs: short tokens (`e12`) tied to element identity. The page
 * script gives every element it reports a per-document local id (a WeakMap
 * element → id, never positional); the session maps (page, frame, document,
 * local id) to a ref from one counter, so a ref is never reused within the
 * session and a ref from an earlier document can never match a new element.
 */
export interface RefTarget {
  ref: string;
  pageId: string;
  frameId: string;
  doc: string;
  id: number;
  /** The registry's key while the ref is live (dropped with it when the table is trimmed). */
  key?: string;
}

/**
 * Refs a session remembers (live ones and tombstones of replaced documents). Past this the oldest
 * are forgotten: a forgotten ref is reported stale (its number was issued: see `issued`), never
 * recycled, so a session that runs for hours keeps a bounded table.
 */
export const MAX_REFS = 10_000;

class RefRegistry {
  private counter = 0;
  private readonly byKey = new Map<string, string>();
  private readonly byRef = new Map<string, RefTarget>();

  refFor(pageId: string, frameId: string, doc: string, id: number): string {
    const key = `${pageId}\u0000${frameId}\u0000${doc}\u0000${id}`;
    let ref = this.byKey.get(key);
    if (!ref) {
      ref = `e${++this.counter}`;
      this.byKey.set(key, ref);
      this.byRef.set(ref, { ref, pageId, frameId, doc, id, key });
      if (this.byRef.size > MAX_REFS) this.forgetOldest(this.byRef.size - MAX_REFS);
    }
    return ref;
  }

  /** Refs (live and stale) remembered now: at most MAX_REFS. */
  get size(): number {
    return this.byRef.size;
  }

  /** Whether `ref` was ever handed out in this session (a forgotten one was). */
  issued(ref: string): boolean {
    return Number(ref.slice(1)) <= this.counter;
  }

  private forgetOldest(n: number): void {
    for (const [ref, t] of this.byRef) {
      if (n-- <= 0) break;
      this.byRef.delete(ref);
      if (t.key !== undefined && this.byKey.get(t.key) === ref) this.byKey.delete(t.key);
    }
  }

  lookup(ref: string): RefTarget | undefined {
    return this.byRef.get(ref);
  }

  /** Forgets every ref of documents other than `keepDocs` in that page frame (they can only be stale). */
  forgetDocuments(pageId: string, frameId: string, keepDoc: string): void {
    for (const [key, ref] of this.byKey) {
      const t = this.byRef.get(ref);
      if (t && t.pageId === pageId && t.frameId === frameId && t.doc !== keepDoc) {
        this.byKey.delete(key);
        // The ref stays known as stale: keep a tombstone.
        this.byRef.set(ref, { ...t, doc: `gone:${t.doc}`, key: undefined });
      }
    }
  }
}

const registries = new WeakMap<Session, RefRegistry>();

export function registryOf(session: Session): RefRegistry {
  let r = registries.get(session);
  if (!r) {
    r = new RefRegistry();
    registries.set(session, r);
  }
  return r;
}

export const REF_PATTERN = /^e[1-9][0-9]*$/;

function staleError(ref: string, why: string): TabwrightError {
  return new TabwrightError(
    'element_not_found',
    `Element ref ${ref} is stale: ${why}. Take a new snapshot (page.snapshot) and use a ref from it.`,
    { details: { element_ref: ref, reason: 'stale_ref' } },
  );
}

/** Looks up a ref of this page and its frame, failing with element_not_found. */
export function targetOf(page: Page, ref: string): { target: RefTarget; frame: BackendFrame } {
  if (typeof ref !== 'string' || !REF_PATTERN.test(ref)) {
    throw new TabwrightError(
      'invalid_request',
      `"${String(ref)}" is not an element ref; refs look like e12 and come from page.snapshot.`,
      { details: { field: 'element_ref' } },
    );
  }
  const registry = registryOf(page.session);
  const target = registry.lookup(ref);
  if (!target && registry.issued(ref))
    throw staleError(ref, `it is older than the last ${MAX_REFS} refs this session remembers`);
  if (!target) {
    throw new TabwrightError(
      'element_not_found',
      `Element ref ${ref} was never issued in this session. Take a snapshot (page.snapshot) and use a ref from it.`,
      { details: { element_ref: ref, reason: 'unknown_ref' } },
    );
  }
  if (target.pageId !== page.id) {
    throw new TabwrightError(
      'element_not_found',
      `Element ref ${ref} belongs to page ${target.pageId}, not ${page.id}. Use it on its own page or take a snapshot of this one.`,
      { details: { element_ref: ref, reason: 'other_page', page_id: target.pageId } },
    );
  }
  if (target.doc.startsWith('gone:'))
    throw staleError(ref, 'its document was replaced (navigation or reload)');
  const frame = page.backend.frames().find((f) => f.id === target.frameId);
  if (!frame || frame.isDetached()) throw staleError(ref, 'its frame is gone');
  return { target, frame };
}

function remaining(d: Deadline): number {
  return Math.max(1, d.remaining());
}

/** Fails with element_not_found/stale_ref unless the ref's element is still attached in its document. */
export async function resolveRef(
  page: Page,
  ref: string,
  d: Deadline,
): Promise<RefTarget & { frame: BackendFrame }> {
  const { target, frame } = targetOf(page, ref);
  const alive = await frame.evaluate(pageCall, { op: 'check', doc: target.doc, id: target.id }, remaining(d));
  if (alive !== true) throw staleError(ref, 'the element was removed or its document replaced');
  return { ...target, frame };
}

/**
 * Runs `fn(element, arg)` in the page on the element behind `ref` (the
 * resolver the actions use). `fn` is sent as source text: pass a string or a
 * self-contained function. A stale ref fails with element_not_found /
 * stale_ref; it never falls back to a look-alike element.
 */
export async function evaluateOnRef<R, A>(
  page: Page,
  ref: string,
  fn: string | ((el: Element, arg: A) => R | Promise<R>),
  arg: A,
  d: Deadline,
): Promise<R> {
  const { target, frame } = targetOf(page, ref);
  const source = typeof fn === 'string' ? fn : fn.toString();
  const res = (await frame.evaluate(
    refFunction(source),
    { doc: target.doc, id: target.id, arg },
    remaining(d),
  )) as RefCallResult;
  if (res.stale) throw staleError(ref, 'the element was removed or its document replaced');
  return res.value as R;
}
