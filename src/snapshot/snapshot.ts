import type { BackendFrame } from '../backends/backend.js';
import type { Deadline } from '../engine/deadline.js';
import { TabwrightError } from '../engine/errors.js';
import { frameById } from '../engine/frames.js';
import type { Page } from '../engine/page.js';
import { OriginPolicy } from '../engine/policy.js';
import { diffAndRemember, type SnapshotDiff } from './diff.js';
import type { RawElement, WalkError, WalkOptions, WalkResult } from './injected/types.js';
import { type ElementEntry, elementsOf, type SnapshotNode } from './model.js';
import type { SnapshotOptions } from './options.js';
import {
  blankProbe,
  evaluateWithPageScript,
  ownerIdentity,
  pageCallJsonInstalled,
} from './page-functions.js';
import { registryOf, targetOf } from './refs.js';
import { joinLines, type Line, type RenderOptions, renderAgentText } from './render.js';

export { SnapshotOptions } from './options.js';

export const SNAPSHOT_DEFAULTS = {
  max_chars: 50_000,
  viewport_margin: 300,
  max_frames: 32,
} as const;

export interface Omitted {
  /** Agent-text lines cut by the character budget. */
  lines: number;
  /** Nodes cut by max_depth. */
  depth_nodes: number;
  /** Refs of interactive nodes that are not in the text (so not in `elements`). */
  refs: number;
  first_refs: string[];
  /** Elements outside the viewport window. */
  outside_viewport: number;
  /** Frames beyond the 32-frame limit or unreadable. */
  frames: number;
}

/**
 * A snapshot in the engine's own terms. Protocol forms are the doors' business: the provider door
 * builds `jcode.page_snapshot.v1` from `model` (src/doors/provider/page-snapshot.ts), the HTTP door
 * its indexed state, the pipe its AOM list.
 */
export interface SnapshotResult {
  page_id: string;
  url: string;
  title: string;
  /** The agent text (the diff text when `diff` was asked and a baseline exists). */
  text: string;
  /** The full agent text even when `text` is a diff. */
  full_text?: string;
  elements: ElementEntry[];
  /** The normalized model as a tree. */
  model: SnapshotNode;
  /** Text cut by max_chars or max_depth, or the model has more than max_nodes nodes. */
  truncated: boolean;
  omitted?: Omitted;
  diff?: SnapshotDiff;
  frames: number;
  viewport: WalkResult['viewport'];
  /** Timings in ms: page walk (main frame) and total. */
  timing: { walk_ms: number; total_ms: number };
}

interface FrameRun {
  frame: BackendFrame;
  result?: WalkResult;
  error?: string;
}

type OwnerIdentity = { doc: string; id: number };
/** Each child frame's iframe element (parent document id, local id), as last looked up; gone with the frame. */
const ownerCache = new WeakMap<BackendFrame, OwnerIdentity>();
/** Blank frames found empty by the last snapshot: the next asks their parent's walk first. */
const wasEmpty = new WeakSet<BackendFrame>();

/** An error page (a blocked or failed load): nothing for the agent there. */
function isErrorPage(url: string): boolean {
  return url.startsWith('chrome-error:');
}

/** A blank frame's URL: usually empty, so a tiny probe comes before the walker. */
function isBlankFrameUrl(url: string): boolean {
  return url === 'about:blank' || url === '' || url === 'about:srcdoc';
}

/** A frame URL the walker is sent to directly (blank frames are probed first, error pages skipped). */
function walkable(url: string): boolean {
  return !isErrorPage(url) && !isBlankFrameUrl(url);
}

function rem(d: Deadline): number {
  return Math.max(1, d.remaining());
}

/** The page script was installed twice and gone by the next call each time. */
function scriptMissing(): TabwrightError {
  return new TabwrightError(
    'not_ready',
    "The snapshot script was gone right after it was installed, twice: the document was replaced (a navigation) or the page's code removed it. Wait for the page to settle and take the snapshot again.",
    { retryable: true, details: { reason: 'page_script_missing' } },
  );
}

function walkErrorToTabwright(err: WalkError, o: SnapshotOptions): TabwrightError {
  if (err.reason === 'invalid_selector') {
    return new TabwrightError(
      'invalid_selector',
      `scope_selector "${o.scope_selector}" is not a valid CSS selector (${err.message}). Fix the selector.`,
      {
        details: { field: 'scope_selector' },
      },
    );
  }
  if (err.reason === 'no_match') {
    return new TabwrightError(
      'element_not_found',
      `No element matches scope_selector "${o.scope_selector}". Take a full snapshot to find the right scope.`,
      {
        details: { field: 'scope_selector', reason: 'no_match' },
      },
    );
  }
  return new TabwrightError(
    'element_not_found',
    `Element ref ${o.scope_ref} is stale: the element was removed or its document replaced. Take a new snapshot and use a ref from it.`,
    {
      details: { element_ref: o.scope_ref, reason: 'stale_ref' },
    },
  );
}

function validate(o: SnapshotOptions): void {
  const num = (k: keyof SnapshotOptions, min: number) => {
    const v = o[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < min)) {
      throw new TabwrightError('invalid_request', `${k} must be a number >= ${min}.`, {
        details: { field: k },
      });
    }
  };
  num('max_depth', 0);
  num('max_chars', 200);
  num('max_nodes', 1);
  num('viewport_margin', 0);
  if (o.scope_ref !== undefined && (o.scope_selector !== undefined || o.scope_frame !== undefined)) {
    throw new TabwrightError(
      'invalid_request',
      'Pass either scope_ref or scope_selector / scope_frame, not both.',
      {
        details: { field: 'scope_ref' },
      },
    );
  }
}

/** Takes a snapshot of `page` (call inside Page.run: it uses the backend directly). */
export async function takeSnapshot(page: Page, o: SnapshotOptions, d: Deadline): Promise<SnapshotResult> {
  const t0 = performance.now();
  validate(o);
  const allFrames = page.backend.frames();
  const main = allFrames[0]!;
  const walkOpts: WalkOptions = { boxes: !!o.include_boxes, urls: !!o.include_urls };
  if (o.attributes?.length) walkOpts.attrs = o.attributes;
  if (o.viewport) walkOpts.margin = o.viewport_margin ?? SNAPSHOT_DEFAULTS.viewport_margin;
  const failedSheets = page.session.requests.failedUrls(page.id, 'stylesheet');
  if (failedSheets.length) walkOpts.failedSheets = failedSheets;

  // Which frames to walk, and the root frame.
  let rootFrame = o.scope_frame === undefined ? main : frameById(page, o.scope_frame);
  const perFrameOpts = new Map<string, WalkOptions>();
  if (o.scope_ref !== undefined) {
    const { target, frame } = targetOf(page, o.scope_ref);
    rootFrame = frame;
    perFrameOpts.set(frame.id, { ...walkOpts, scopeId: target.id, doc: target.doc });
  } else if (o.scope_selector !== undefined) {
    if (typeof o.scope_selector !== 'string' || o.scope_selector.trim() === '') {
      throw new TabwrightError('invalid_request', 'scope_selector must be a non-empty CSS selector.', {
        details: { field: 'scope_selector' },
      });
    }
    perFrameOpts.set(rootFrame.id, { ...walkOpts, selector: o.scope_selector });
  }
  const byId = new Map(allFrames.map((f) => [f.id, f]));
  const underRoot = (f: BackendFrame): boolean => {
    for (let x: BackendFrame | undefined = f; x; x = x.parentId ? byId.get(x.parentId) : undefined)
      if (x === rootFrame) return true;
    return false;
  };
  const wanted = o.include_frames === false ? [rootFrame] : allFrames.filter(underRoot);
  // A caller narrower than the session (frame_origins): its frames elsewhere are marked, never read.
  const narrower = o.frame_origins ? OriginPolicy.parse({ allowed_origins: o.frame_origins }) : null;
  // A blank or srcdoc frame (about:…, or no URL yet) has its creator's origin, not none: it is judged
  // by its nearest ancestor with a URL of its own, so an outside frame's blank children stay unread.
  // Reaching the root means the root's origin, which is read whatever it is.
  const originUrl = (f: BackendFrame): string | null => {
    for (
      let x: BackendFrame | undefined = f;
      x && x !== rootFrame;
      x = x.parentId ? byId.get(x.parentId) : undefined
    )
      if (!/^(about:|$)/.test(x.url())) return x.url();
    return null;
  };
  const outside = (f: BackendFrame) => {
    if (f === rootFrame || narrower === null || isErrorPage(f.url())) return false;
    const url = originUrl(f);
    return url !== null && !narrower.allowsDocument(url);
  };
  const readable = wanted.filter((f) => !outside(f));
  const frames = readable.slice(0, SNAPSHOT_DEFAULTS.max_frames);
  // Frames beyond the limit are not read, but marked where their iframe stands (and counted below).
  const beyond: (FrameRun & { error: string })[] = readable
    .slice(SNAPSHOT_DEFAULTS.max_frames)
    .map((frame) => ({ frame, error: `not read: beyond the ${SNAPSHOT_DEFAULTS.max_frames}-frame limit` }));
  for (const frame of wanted.filter(outside))
    beyond.push({ frame, error: 'not read: outside the allowed origins' });
  let framesOmitted = 0;

  const pending = new Map<BackendFrame, Promise<FrameRun>>();
  // Frames whose iframe element is known in a parent that is read too: that parent's walk walks
  // them in the same call (WalkOptions.nested), sparing each its own round trip. Blank and error
  // frames keep their own cheaper paths; a frame the parent could not walk is asked on its own.
  // Likewise, a blank frame found empty last time is checked by its parent's walk, even where that
  // walk does not reach its iframe (a hidden one).
  const reading = new Set(frames);
  const nestedIds: Record<string, number[]> = {};
  const blankIds: Record<string, number[]> = {};
  const nestedFrames = new Map<BackendFrame, string>();
  for (const f of frames) {
    const owner = ownerCache.get(f);
    const parent = f.parentId ? byId.get(f.parentId) : undefined;
    if (f === rootFrame || !owner || !parent || !reading.has(parent)) continue;
    if (walkable(f.url())) {
      nestedIds[owner.doc] ??= [];
      nestedIds[owner.doc]!.push(owner.id);
      nestedFrames.set(f, `${owner.doc}:${owner.id}`);
    } else if (wasEmpty.has(f)) {
      blankIds[owner.doc] ??= [];
      blankIds[owner.doc]!.push(owner.id);
    }
  }
  const frameOpts = (opts: WalkOptions): WalkOptions => {
    if (!nestedFrames.size && !Object.keys(blankIds).length) return opts;
    const out = { ...opts };
    if (nestedFrames.size) out.nested = nestedIds;
    if (Object.keys(blankIds).length) out.blank = blankIds;
    return out;
  };
  const nestedResults = new Map<string, WalkResult | WalkError>();
  const parseWalk = (json: string): WalkResult | WalkError => {
    const res = JSON.parse(json) as WalkResult | WalkError;
    if (res.ok && res.nested) {
      for (const n of res.nested) nestedResults.set(`${n.doc}:${n.id}`, n.result);
      delete res.nested;
    }
    return res;
  };
  const readFrame = async (frame: BackendFrame): Promise<FrameRun> => {
    try {
      const nestedKey = nestedFrames.get(frame);
      let res: WalkResult | WalkError | undefined;
      if (nestedKey) {
        // Walked inside its parent's call (whose ancestors are read by then), or asked below.
        await pending.get(byId.get(frame.parentId!)!);
        res = nestedResults.get(nestedKey);
      }
      if (!res && frame !== rootFrame) {
        const url = frame.url();
        // Error pages (blocked or failed loads) have nothing for the agent.
        if (isErrorPage(url)) return { frame, error: 'the frame failed to load' };
        // Blank frames are usually empty: a tiny probe spares installing the walker there.
        if (isBlankFrameUrl(url)) {
          // Empty last time and its iframe known: the parent's walk tells (no round trip of its own).
          const known = wasEmpty.has(frame) ? ownerCache.get(frame) : undefined;
          const parentRun = known && frame.parentId ? pending.get(byId.get(frame.parentId)!) : undefined;
          const parent = parentRun ? (await parentRun).result : undefined;
          const empty =
            (parent && parent.doc === known!.doc && parent.blankFrames?.includes(known!.id)) ||
            (await frame.evaluate(blankProbe, null, rem(d)));
          if (empty) {
            wasEmpty.add(frame);
            return { frame, error: 'empty' };
          }
          wasEmpty.delete(frame);
        }
      }
      if (!res) {
        const arg = { op: 'walk' as const, opts: frameOpts(perFrameOpts.get(frame.id) ?? walkOpts) };
        // The walker is installed once per document; calls send only a small stub.
        const json = await evaluateWithPageScript(frame, pageCallJsonInstalled, arg, d, (r) => r === null);
        if (json === undefined) throw scriptMissing();
        res = parseWalk(json);
      }
      if (!res.ok) {
        if (frame === rootFrame) throw walkErrorToTabwright(res, o);
        return { frame, error: res.message };
      }
      return { frame, result: res };
    } catch (err) {
      if (frame === rootFrame) throw err;
      return { frame, error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
    }
  };
  // In document order, so a frame's parent is pending before the frame itself.
  for (const frame of frames) pending.set(frame, readFrame(frame));
  const runs: FrameRun[] = await Promise.all(frames.map((f) => pending.get(f)!));
  runs.push(...beyond);
  const rootRun = runs[0]!;
  const top = rootRun.result!;
  // The secret values each document holds join the session's registry; they never leave the engine.
  const secrets = page.session.secrets;
  for (const r of runs) {
    if (!r.result) continue;
    secrets.addFound(r.result.secrets);
    delete r.result.secrets;
  }

  // Where each child frame goes: the local id of its iframe element in the parent document.
  const childOf = new Map<string, FrameRun>();
  const docOf = new Map(runs.map((r) => [r.frame.id, r.result?.doc]));
  await Promise.all(
    runs.slice(1).map(async (run) => {
      // Frames with nothing to show (blank, blocked, failed) need no placing.
      if (run.result && !run.result.root.c?.length) return;
      if (run.error === 'the frame failed to load') return;
      if (run.error === 'empty') {
        // Its iframe, looked up once while the parent is read: later snapshots skip its probe (readFrame).
        if (!ownerCache.has(run.frame) && run.frame.parentId && docOf.get(run.frame.parentId)) {
          const owner = await run.frame.evaluateOnOwner(ownerIdentity, null, rem(d)).catch(() => null);
          if (owner) ownerCache.set(run.frame, owner);
        }
        return;
      }
      const place = (owner: OwnerIdentity) =>
        childOf.set(`${run.frame.parentId}:${owner.doc}:${owner.id}`, run);
      // A frame's iframe element stays the same while the frame lives (moving the element makes a
      // new frame): known from an earlier snapshot of the same parent document, it costs no round trip.
      const known = ownerCache.get(run.frame);
      if (known && run.frame.parentId && known.doc === docOf.get(run.frame.parentId)) return place(known);
      try {
        const owner = await run.frame.evaluateOnOwner(ownerIdentity, null, rem(d));
        if (owner) {
          ownerCache.set(run.frame, owner);
          place(owner);
        } else framesOmitted++;
      } catch {
        framesOmitted++;
      }
    }),
  );

  // Raw trees → model with session refs.
  const registry = registryOf(page.session);
  let seq = 0;
  const mainFrameId = main.id;
  let inlineSeq = 0;
  // Inline nodes are numbered apart, so the other nodes' ids stay what they were without them.
  const inlineNode = (raw: RawElement, run: FrameRun): SnapshotNode => {
    const n: SnapshotNode = {
      node_id: `i${++inlineSeq}`,
      role: raw.role,
      name: raw.name ?? '',
      interactive: false,
      actionable: false,
      tag: raw.tag,
      element_ref: registry.refFor(page.id, run.frame.id, run.result!.doc, raw.id),
      children: [],
    };
    if (run.frame.id !== mainFrameId) n.frame = run.frame.id;
    return n;
  };
  const convert = (raw: RawElement | string, run: FrameRun, offset: [number, number]): SnapshotNode => {
    const nodeId = `n${++seq}`;
    if (typeof raw === 'string') {
      return {
        node_id: nodeId,
        role: 'text',
        name: '',
        text: raw,
        interactive: false,
        actionable: false,
        tag: '#text',
        children: [],
      };
    }
    const res = run.result!;
    const frameId = run.frame.id;
    const n: SnapshotNode = {
      node_id: nodeId,
      role: raw.role,
      name: raw.name ?? '',
      interactive: raw.ia === 1,
      actionable: raw.act === 1,
      tag: raw.tag,
      children: [],
    };
    if (raw.id !== 0) n.element_ref = registry.refFor(page.id, frameId, res.doc, raw.id);
    if (raw.text) n.text = raw.text;
    if (raw.value !== undefined) n.value = raw.value;
    if (raw.st) n.states = raw.st;
    if (raw.cov) n.covered = true;
    if (raw.clk) n.clickable = true;
    if (raw.attrs) n.attrs = raw.attrs;
    if (frameId !== mainFrameId) n.frame = frameId;
    if (raw.url) n.url = raw.url;
    if (raw.hint) n.selector_hint = raw.hint;
    if (raw.shadow) n.shadow = raw.shadow;
    if (raw.box) n.bbox = [raw.box[0] + offset[0], raw.box[1] + offset[1], raw.box[2], raw.box[3]];
    if (raw.c) for (const k of raw.c) n.children.push(convert(k, run, offset));
    if (raw.inl) n.inline = raw.inl.map((k) => inlineNode(k, run));
    if (raw.frame) {
      const child = childOf.get(`${frameId}:${res.doc}:${raw.id}`);
      if (child?.result) {
        const off: [number, number] = raw.box ? [offset[0] + raw.box[0], offset[1] + raw.box[1]] : offset;
        for (const k of child.result.root.c ?? []) n.children.push(convert(k, child, off));
        if (!n.name && child.result.title) n.name = child.result.title;
      } else if (child?.error && child.error !== 'empty') {
        n.frame_error = child.error.slice(0, 200);
      }
    }
    return n;
  };
  // Values are redacted in the page already; the scrub also catches secrets the page shows elsewhere
  // (an echo, a private editor's text in a label). Text, elements, diffs and v1 all come from this model.
  const model = secrets.scrub(convert(top.root, rootRun, [0, 0]));
  const title = secrets.scrubText(top.title);
  if (model.role === 'document') model.name = title;

  const ro: RenderOptions = {
    interactiveOnly: !!o.interactive_only,
    maxDepth: o.max_depth,
    includeUrls: !!o.include_urls,
    includeBoxes: !!o.include_boxes,
  };
  const rendered = renderAgentText(model, ro);
  const maxChars = o.max_chars ?? SNAPSHOT_DEFAULTS.max_chars;
  const budget = applyBudget(rendered.lines, maxChars);
  const outsideViewport = runs.reduce((s, r) => s + (r.result?.outside ?? 0), 0);

  const allElements = elementsOf(model);
  const printed = new Set<string>();
  for (const l of budget.kept) for (const r of l.refs) printed.add(r);
  const elements = allElements.filter((e) => printed.has(e.element_ref));
  const missingRefs = allElements.filter((e) => !printed.has(e.element_ref)).map((e) => e.element_ref);

  const truncated =
    budget.cutLines > 0 || rendered.depthOmitted > 0 || beyond.some((r) => r.error.includes('frame limit'));
  if (o.strict && budget.cutLines > 0) {
    throw new TabwrightError(
      'invalid_request',
      `The snapshot text is ${budget.fullChars} characters, above max_chars ${maxChars}. Narrow it (scope_ref, scope_selector, interactive_only, viewport, max_depth) or raise max_chars.`,
      { details: { reason: 'snapshot_too_large', chars: budget.fullChars, max_chars: maxChars } },
    );
  }
  let text = joinLines(budget.kept);
  if (budget.cutLines > 0) {
    text += `${text ? '\n' : ''}[truncated: ${budget.cutLines} more lines (${budget.fullChars - budget.keptChars} chars, ${missingRefs.length} refs) omitted; narrow with scope_ref, scope_selector, interactive_only or viewport, or raise max_chars]`;
  }
  if (rendered.depthOmitted > 0) {
    text += `${text ? '\n' : ''}[max_depth ${o.max_depth}: ${rendered.depthOmitted} deeper nodes omitted; use scope_ref on a node to see inside]`;
  }

  const nodesTruncated = o.max_nodes !== undefined && countNodes(model) > o.max_nodes;
  if (nodesTruncated && o.strict) {
    throw new TabwrightError(
      'invalid_request',
      `The snapshot has more than max_nodes ${o.max_nodes} nodes. Narrow it or raise max_nodes.`,
      {
        details: { reason: 'snapshot_too_large', max_nodes: o.max_nodes },
      },
    );
  }

  const docs = runs.map((r) => `${r.frame.id}=${r.result?.doc ?? '-'}`).join(',');
  const scopeKey = JSON.stringify([
    o.scope_ref ?? null,
    o.scope_selector ?? null,
    !!o.interactive_only,
    o.max_depth ?? null,
    !!o.viewport,
  ]);
  const diffRes = diffAndRemember(page, scopeKey, docs, model, ro, !!o.diff);

  const result: SnapshotResult = {
    page_id: page.id,
    url: secrets.scrubText(top.url),
    title,
    text,
    elements,
    model,
    truncated: truncated || nodesTruncated,
    frames: runs.filter((r) => r.result).length,
    viewport: top.viewport,
    timing: { walk_ms: top.ms, total_ms: 0 },
  };
  if (result.truncated || outsideViewport > 0 || framesOmitted > 0) {
    result.omitted = {
      lines: budget.cutLines,
      depth_nodes: rendered.depthOmitted,
      refs: missingRefs.length,
      first_refs: missingRefs.slice(0, 20),
      outside_viewport: outsideViewport,
      frames: framesOmitted + runs.filter((r) => r.error && r.error !== 'empty').length,
    };
  }
  if (o.diff) {
    if ('added' in diffRes) {
      result.diff = diffRes;
      result.full_text = text;
      result.text = diffRes.text;
    } else {
      result.diff = { full: true, reason: diffRes.reason, added: [], removed: [], changed: [], text };
    }
  }
  result.timing.total_ms = Math.round(performance.now() - t0);
  return result;
}

function countNodes(n: SnapshotNode): number {
  let c = 0;
  for (const k of n.children) c += 1 + countNodes(k);
  return c;
}

function applyBudget(
  lines: Line[],
  maxChars: number,
): { kept: Line[]; cutLines: number; fullChars: number; keptChars: number } {
  let full = 0;
  for (const l of lines) full += l.depth + l.text.length + 1;
  if (full <= maxChars) return { kept: lines, cutLines: 0, fullChars: full, keptChars: full };
  const room = maxChars - 220; // space for the truncation marker
  const kept: Line[] = [];
  let used = 0;
  for (const l of lines) {
    const len = l.depth + l.text.length + 1;
    if (used + len > room) break;
    kept.push(l);
    used += len;
  }
  return { kept, cutLines: lines.length - kept.length, fullChars: full, keptChars: used };
}
