import type { BackendFrame } from '../backends/backend.js';
import type { Deadline } from '../engine/deadline.js';
import { TabwrightError } from '../engine/errors.js';
import type { Page } from '../engine/page.js';
import type { Session } from '../engine/session.js';
import { pageCallInstalled, type RefCallResult, refFunction } from './page-functions.js';

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
}

/**
 * Refs a session remembers (live ones and those of replaced documents). Past this the oldest
 * are forgotten: a forgotten ref is reported stale (its number was issued: see `issued`), never
 * recycled, so a session that runs for hours keeps a bounded table (≈ 140 bytes a ref: ≈ 1.4 MB; ARCHITECTURE, bounds).
 */
export const MAX_REFS = 10_000;

/** The refs of one document of one page frame; shared by all of them, so a ref costs three Map entries. */
interface DocRefs {
  key: string;
  pageId: string;
  frameId: string;
  doc: string;
  /** The document was replaced (forgetDocuments): its refs are only tombstones. */
  gone: boolean;
  /** The page script's local id → ref number. */
  byLocal: Map<number, number>;
}

class RefRegistry {
  private counter = 0;
  /** Documents with refs, by page, frame and document id. */
  private readonly docs = new Map<string, DocRefs>();
  /** Ref number → its document, oldest first (the eviction order). */
  private readonly owner = new Map<number, DocRefs>();
  /** Ref number → the page script's local id. */
  private readonly localId = new Map<number, number>();
  /** The document of the last call: a snapshot asks for many refs of one document in a row. */
  private last: DocRefs | undefined;

  refFor(pageId: string, frameId: string, doc: string, id: number): string {
    let d = this.last;
    if (!d || d.doc !== doc || d.frameId !== frameId || d.pageId !== pageId || d.gone) {
      const key = `${pageId}\u0000${frameId}\u0000${doc}`;
      d = this.docs.get(key);
      if (!d) {
        d = { key, pageId, frameId, doc, gone: false, byLocal: new Map() };
        this.docs.set(key, d);
      }
      this.last = d;
    }
    let n = d.byLocal.get(id);
    if (n === undefined) {
      n = ++this.counter;
      d.byLocal.set(id, n);
      this.owner.set(n, d);
      this.localId.set(n, id);
      if (this.owner.size > MAX_REFS) this.forgetOldest(this.owner.size - MAX_REFS);
    }
    return `e${n}`;
  }

  /** Refs (live and stale) remembered now: at most MAX_REFS. */
  get size(): number {
    return this.owner.size;
  }

  /** Whether `ref` was ever handed out in this session (a forgotten one was). */
  issued(ref: string): boolean {
    return Number(ref.slice(1)) <= this.counter;
  }

  private forgetOldest(count: number): void {
    for (const [n, d] of this.owner) {
      if (count-- <= 0) break;
      this.owner.delete(n);
      const id = this.localId.get(n)!;
      this.localId.delete(n);
      if (d.byLocal.get(id) === n) d.byLocal.delete(id);
      if (d.byLocal.size === 0 && this.docs.get(d.key) === d) this.docs.delete(d.key);
    }
  }

  lookup(ref: string): RefTarget | undefined {
    const n = Number(ref.slice(1));
    const d = this.owner.get(n);
    if (!d) return undefined;
    return {
      ref,
      pageId: d.pageId,
      frameId: d.frameId,
      doc: d.gone ? `gone:${d.doc}` : d.doc,
      id: this.localId.get(n)!,
    };
  }

  /** Forgets every document other than `keepDoc` in that page frame: their refs can only be stale. */
  forgetDocuments(pageId: string, frameId: string, keepDoc: string): void {
    for (const [key, d] of this.docs) {
      if (d.pageId !== pageId || d.frameId !== frameId || d.doc === keepDoc) continue;
      // The refs stay known as stale (tombstones); the document can no longer hand out refs.
      d.gone = true;
      d.byLocal.clear();
      this.docs.delete(key);
    }
    if (this.last?.gone) this.last = undefined;
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
  // A document without the page script is not the ref's (its script issued the ref): stale, as is an
  // element the script no longer finds.
  const alive = await frame.evaluate(
    pageCallInstalled,
    { op: 'check', doc: target.doc, id: target.id },
    remaining(d),
  );
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
