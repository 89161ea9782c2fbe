import type { ProviderClient, Reply } from './client.js';
import { imageSize } from './image-size.js';

// The steps scenarios are written in: calls, checks, snapshot lookups, the suite's pages.

/** A scenario's failure, with the reason the report shows. */
export class Fail extends Error {}

export interface RunContext {
  client: ProviderClient;
  /** Base URL of the suite's page server. */
  base: string;
  run: number;
  timeoutMs: number;
  describe?: any;
  sessionId?: string;
  pageId?: string;
  /** Session ids seen in every run so far (never recycled). */
  seenSessionIds: Set<string>;
}

export async function call(
  ctx: RunContext,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Reply> {
  return ctx.client.request(method, params, { timeoutMs: ctx.timeoutMs });
}

export async function ok(
  ctx: RunContext,
  method: string,
  params: Record<string, unknown> = {},
): Promise<any> {
  const r = await call(ctx, method, params);
  if (!r.ok) throw new Fail(`${method} failed: ${r.error.code}: ${r.error.message}`);
  if (!r.result || typeof r.result !== 'object') throw new Fail(`${method} returned no result object`);
  return r.result;
}

export function need<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Fail(`skipped: ${what} did not succeed earlier`);
  return v;
}

export function check(cond: unknown, reason: string): asserts cond {
  if (!cond) throw new Fail(reason);
}

export function session(ctx: RunContext): { session_id: string } {
  return { session_id: need(ctx.sessionId, 'session.ensure') };
}

/** The element (or snapshot node) with a ref whose name or text contains `name`. */
export function findElement(snap: any, name: string): any {
  const pools = [snap?.elements, snap?.snapshot?.nodes].filter(Array.isArray) as any[][];
  for (const pool of pools) {
    for (const e of pool) {
      const label = `${e?.name ?? ''} ${e?.text ?? ''}`;
      if (typeof e?.element_ref === 'string' && e.element_ref && label.includes(name)) return e;
    }
  }
  return undefined;
}

/** The ref of the actionable element whose name (or text) contains `name`, from elements or snapshot nodes. */
export function findRef(snap: any, name: string): string | undefined {
  return findElement(snap, name)?.element_ref;
}

/** Every ref of a snapshot and the label of its element (name, else text), elements and nodes alike. */
export function refLabels(snap: any): Map<string, string> {
  const out = new Map<string, string>();
  const pools = [snap?.elements, snap?.snapshot?.nodes].filter(Array.isArray) as any[][];
  for (const pool of pools)
    for (const e of pool)
      if (typeof e?.element_ref === 'string' && e.element_ref && !out.has(e.element_ref))
        out.set(e.element_ref, String(e.name || e.text || ''));
  return out;
}

export async function snapshotText(ctx: RunContext): Promise<{ snap: any; text: string }> {
  const snap = await ok(ctx, 'page.snapshot', session(ctx));
  const text = typeof snap.text === 'string' ? snap.text : '';
  return { snap, text };
}

/** The page's text now (snapshot text and nodes): for checks that something is absent, without a wait. */
export async function textNow(ctx: RunContext): Promise<string> {
  const { snap, text } = await snapshotText(ctx);
  return `${text}\n${JSON.stringify(snap.snapshot ?? {})}`;
}

/** Whether `text` shows up on the page: page.wait when it works, else snapshot text. */
export async function shows(ctx: RunContext, text: string): Promise<boolean> {
  const w = await call(ctx, 'page.wait', { ...session(ctx), text_present: text, timeout_ms: 3000 });
  if (w.ok && w.result?.satisfied === true) return true;
  const { snap, text: t } = await snapshotText(ctx);
  return t.includes(text) || JSON.stringify(snap.snapshot ?? {}).includes(text);
}

export async function openForm(ctx: RunContext): Promise<any> {
  const r = await ok(ctx, 'page.open', { ...session(ctx), url: `${ctx.base}/form.html` });
  return r;
}

export async function openLab(ctx: RunContext): Promise<any> {
  return ok(ctx, 'page.open', { ...session(ctx), url: `${ctx.base}/lab.html` });
}

/** The form's actionable elements and the role each must have. */
export const FORM_CONTROLS: [name: string, role: string][] = [
  ['Increment', 'button'],
  ['Your name', 'textbox'],
  ['Reveal later', 'button'],
  ['Remove me', 'button'],
  ['Second page', 'link'],
];

/** The width and height the image itself says, compared with what the reply states. */
export function checkImageSize(r: any, what: string): { width: number; height: number } | undefined {
  if (typeof r.image !== 'string') return undefined;
  const size = imageSize(Buffer.from(r.image, 'base64'));
  check(size, `${what}: image is not a readable base64 PNG or JPEG`);
  check(
    r.width === undefined || (r.width === size.width && r.height === size.height),
    `${what}: the reply says ${r.width}x${r.height} but the ${size.format} is ${size.width}x${size.height}`,
  );
  if (r.media_type !== undefined)
    check(
      r.media_type === `image/${size.format}`,
      `${what}: media_type ${r.media_type} but the image is ${size.format}`,
    );
  return size;
}
