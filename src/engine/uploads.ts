import type { BackendFrame } from '../backends/backend.js';
import { evaluateOnRef } from '../snapshot/refs.js';
import { performFiles } from './actions/perform.js';
import { resolveTarget } from './actions/resolve.js';
import type { ActionOptions, Receipt, Target } from './actions/types.js';
import type { Deadline } from './deadline.js';
import { TabwrightError } from './errors.js';
import { frameById, mainFrame } from './frames.js';
import { log } from './log.js';
import type { Page } from './page.js';
import { pageCdpSession } from './raw.js';

/**
 * Files on an `<input type=file>` with a receipt that says whether the page took them (reference §10.4):
 * which input (several matches: the first in document order, or `nth`; hidden inputs allowed), the
 * input's listeners read before (CDP `DOMDebugger.getEventListeners` on the element and its ancestors for
 * inputs of the main frame, plus framework markers), the action pipeline's file step and its observation
 * window, then a read-back of `files.length` that tolerates a framework replacing the input.
 */

export interface FrameworkListeners {
  vue2: boolean;
  vue3: boolean;
  react: boolean;
  inline: boolean;
  jquery: boolean;
  /** Event types registered on the input itself (CDP; empty when not read). */
  events: string[];
  /** change / input listeners on ancestors (delegation, React roots), CDP only. */
  delegated: string[];
}

export interface UploadOutcome {
  receipt: Receipt;
  /**
   * The page reacted: text, structure, URL, title, tabs, a dialog or a download changed in the window.
   * The receipt's `changed` also counts form values, and the input's own value changes whenever files
   * are set, so it cannot tell a page that took the file from one that ignored it.
   */
  pageChanged: boolean;
  pageChangeStatus: 'observed' | 'not_observed' | 'unknown';
  element_ref: string;
  /** Files on the input after the action; null when the input is gone. */
  filesLength: number | null;
  fileNames: string[];
  elementGone: boolean;
  readbackNote?: string;
  listeners: FrameworkListeners;
  /** true: a change/input listener or framework handler was found; false: CDP confirmed none; null: unknown. */
  hasListeners: boolean | null;
  listenerDetection: 'cdp' | 'heuristic';
  consumed: 'listened' | 'noListener' | 'unknown';
  /** Selector targets: matches, the one used, visible ones among the first 20. */
  matched?: number;
  chosenIndex?: number;
  visibleMatched?: number;
  input: { multiple: boolean; accept: string; visible: boolean; disabled: boolean };
}

/** Counts a selector's matches in a frame: all, and visible among the first 20. */
const COUNT_MATCHES = new Function(
  'a',
  `let list;
   try { list = document.querySelectorAll(a.selector); } catch (e) { return { bad: String(e && e.message || e) }; }
   let visible = 0;
   for (const el of Array.prototype.slice.call(list, 0, 20)) {
     const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
     if (r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none') visible++;
   }
   return { count: list.length, visible };`,
) as (a: { selector: string }) => { bad?: string; count?: number; visible?: number };

const INPUT_INFO = `(el) => {
  const keys = Object.keys(el);
  const prop = (prefix) => { const k = keys.find((x) => x.startsWith(prefix)); return k ? el[k] : null; };
  const rp = prop('__reactProps$') || prop('__reactEventHandlers$');
  let jquery = false;
  try { const jq = window.jQuery; const ev = jq && jq._data ? jq._data(el, 'events') : null; jquery = !!(ev && (ev.change || ev.input)); } catch {}
  const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
  return {
    tag: el.localName,
    type: (el.getAttribute('type') || '').toLowerCase(),
    multiple: !!el.multiple,
    accept: el.getAttribute('accept') || '',
    disabled: !!el.disabled,
    visible: r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none',
    listeners: {
      vue2: !!(el.__vue__ || (el.parentElement && el.parentElement.__vue__)),
      vue3: !!(el._vei && (el._vei.onChange || el._vei.onInput)),
      react: !!(rp && (rp.onChange || rp.onInput)),
      inline: typeof el.onchange === 'function' || typeof el.oninput === 'function',
      jquery,
    },
  };
}`;

const READBACK = `(el) => ({ connected: el.isConnected, filesLength: el.files ? el.files.length : null,
  names: el.files ? Array.prototype.slice.call(el.files, 0, 20).map((f) => f.name) : [] })`;

interface InputInfo {
  tag: string;
  type: string;
  multiple: boolean;
  accept: string;
  disabled: boolean;
  visible: boolean;
  listeners: Omit<FrameworkListeners, 'events' | 'delegated'>;
}

/** Sets `files` (absolute paths) on the file input the target names. */
export async function uploadFiles(
  page: Page,
  target: Target,
  files: string[],
  opts: ActionOptions = {},
): Promise<UploadOutcome> {
  // 1. Which input, what it is, who listens: one read before the action.
  const probe = await page.run(
    'page.upload_probe',
    'read',
    { timeoutMs: opts.timeoutMs, signal: opts.signal },
    async (d) => {
      let matched: number | undefined;
      let visibleMatched: number | undefined;
      let chosenIndex: number | undefined;
      let resolvedTarget = target;
      if ('selector' in target) {
        const c = await (target.frame === undefined
          ? mainFrame(page)
          : frameById(page, target.frame)
        ).evaluate(COUNT_MATCHES, { selector: target.selector }, Math.max(1, d.remaining()));
        if (c.bad)
          throw new TabwrightError('invalid_selector', `The selector is not valid CSS (${c.bad}).`, {
            details: { selector: target.selector, field: 'selector' },
          });
        matched = c.count ?? 0;
        visibleMatched = c.visible ?? 0;
        // Zero matches fail at once, not after an actionability wait (§10.4).
        if (matched === 0)
          throw new TabwrightError(
            'element_not_found',
            `Nothing matches selector ${JSON.stringify(target.selector)}.`,
            {
              details: { reason: 'no_match', match_count: 0 },
            },
          );
        chosenIndex = target.nth ?? 0;
        if (chosenIndex >= matched)
          throw new TabwrightError(
            'element_not_found',
            `Selector ${JSON.stringify(target.selector)} matches ${matched} elements, so there is no nth ${chosenIndex} (0-based).`,
            { details: { reason: 'nth_out_of_range', match_count: matched } },
          );
        // File inputs are usually hidden: no visibility preference, the first in document order unless nth.
        if (matched > 1 || target.nth !== undefined) resolvedTarget = { ...target, nth: chosenIndex };
      }
      const el = await resolveTarget(page, resolvedTarget, d);
      if (el.kind !== 'element')
        throw new TabwrightError('invalid_request', 'upload needs an element target.', {
          details: { field: 'target' },
        });
      const info = await evaluateOnRef<InputInfo, null>(page, el.ref, INPUT_INFO, null, d);
      if (info.tag !== 'input' || info.type !== 'file') {
        // The element kind is wrong, not its state: the same code as the action guard's refusal of a
        // set_files step on it (and of select / check on a wrong kind), the spec's unsupported_target.
        throw new TabwrightError(
          'unsupported_target',
          `The target is <${info.tag}${info.type ? ` type=${info.type}` : ''}>, not an <input type=file>. Target the file input itself (often hidden, e.g. selector input[type=file]).`,
          { details: { reason: 'not_file_input', tag: info.tag, element_ref: el.ref } },
        );
      }
      const cdp = el.frame.parentId ? null : await cdpListeners(page, el.frame, el.doc, el.id, d);
      return { el, info, cdp, matched, visibleMatched, chosenIndex };
    },
  );

  if (files.length > 1 && !probe.info.multiple) {
    throw new TabwrightError(
      'invalid_request',
      `The file input takes one file (no "multiple" attribute); ${files.length} were given.`,
      { details: { field: 'files' } },
    );
  }

  // 2. The pipeline's file step (guard, dispatch once, observation window, receipt).
  const receipt = await performFiles(page, probe.el.ref, files, opts);

  // 3. Read-back. A framework may have replaced the input after taking the file: that is not a failure.
  let filesLength: number | null = null;
  let fileNames: string[] = [];
  let elementGone = false;
  let readbackNote: string | undefined;
  try {
    const r = await page.evaluateRef<
      { connected: boolean; filesLength: number | null; names: string[] },
      null
    >(probe.el.ref, READBACK, null, { timeoutMs: 3_000 });
    filesLength = r.filesLength;
    fileNames = r.names;
    if (!r.connected) {
      elementGone = true;
      readbackNote =
        'The input was removed from the page after the files were set (frameworks often replace it after taking the file); not a failure.';
    }
  } catch (err) {
    if (!(err instanceof TabwrightError) || err.code !== 'element_not_found') throw err;
    elementGone = true;
    readbackNote =
      'The input was replaced after the files were set (its document or element is gone); not a failure. Check the page for the file name or a preview.';
  }

  const l = probe.info.listeners;
  const listeners: FrameworkListeners = {
    ...l,
    events: probe.cdp?.own ?? [],
    delegated: probe.cdp?.delegated ?? [],
  };
  const ownChange = listeners.events.some((t) => t === 'change' || t === 'input');
  const found = l.vue3 || l.react || l.inline || l.jquery || ownChange || listeners.delegated.length > 0;
  const hasListeners = found ? true : probe.cdp ? false : null;
  const consumed = found ? 'listened' : hasListeners === false ? 'noListener' : 'unknown';
  const c = receipt.changes;
  const pageChanged =
    c.text_changed ||
    c.structure_changed ||
    c.navigated ||
    c.url !== undefined ||
    c.title !== undefined ||
    c.new_pages.length > 0 ||
    (c.tab_count !== undefined && c.tab_count.before !== c.tab_count.after) ||
    receipt.dialog !== null ||
    receipt.downloads.length > 0;
  return {
    receipt,
    pageChanged,
    pageChangeStatus: pageChanged
      ? 'observed'
      : receipt.change_status === 'unknown'
        ? 'unknown'
        : 'not_observed',
    element_ref: probe.el.ref,
    filesLength,
    fileNames,
    elementGone,
    readbackNote,
    listeners,
    hasListeners,
    listenerDetection: probe.cdp ? 'cdp' : 'heuristic',
    consumed,
    matched: probe.matched,
    chosenIndex: probe.chosenIndex,
    visibleMatched: probe.visibleMatched,
    input: {
      multiple: probe.info.multiple,
      accept: probe.info.accept,
      visible: probe.info.visible,
      disabled: probe.info.disabled,
    },
  };
}

const RELEVANT = new Set(['change', 'input']);

/**
 * Event listeners of a main-frame element and its ancestors (to window) over CDP. null when CDP is not
 * available (another backend, a remote browser that refuses the session): the caller falls back to the
 * framework markers and says `heuristic`.
 */
async function cdpListeners(
  page: Page,
  frame: BackendFrame,
  doc: string,
  id: number,
  d: Deadline,
): Promise<{ own: string[]; delegated: string[] } | null> {
  if (frame.parentId) return null;
  let session: Awaited<ReturnType<typeof pageCdpSession>> | undefined;
  const group = 'tabwright-listeners';
  // One budget for the whole read (at most 2 s): a browser that does not answer CDP gets the heuristic.
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('CDP listener read timed out')),
      Math.max(1, Math.min(2_000, d.remaining() - 200)),
    );
  });
  expired.catch(() => {});
  const within = <T>(p: Promise<T>): Promise<T> => Promise.race([p, expired]);
  try {
    session = await within(pageCdpSession(page));
    const s = session;
    const ev = (await within(
      s.send('Runtime.evaluate', {
        expression: `(() => { const tw = globalThis[Symbol.for('tabwright.snapshot')]; return tw ? tw.element(${JSON.stringify(doc)}, ${Number(id)}) : null; })()`,
        objectGroup: group,
      }),
    )) as { result?: { objectId?: string } };
    const objectId = ev.result?.objectId;
    if (!objectId) return null;
    const types = async (oid: string) =>
      (
        (await within(s.send('DOMDebugger.getEventListeners', { objectId: oid, depth: 0 }))) as {
          listeners?: { type: string }[];
        }
      ).listeners?.map((x) => x.type) ?? [];
    const own = [...new Set(await types(objectId))];
    const chain = (await within(
      s.send('Runtime.callFunctionOn', {
        objectId,
        functionDeclaration:
          'function () { const out = []; let p = this.parentNode; while (p) { out.push(p); p = p.parentNode || p.host || null; } out.push(window); return out; }',
        objectGroup: group,
      }),
    )) as { result?: { objectId?: string } };
    const delegated = new Set<string>();
    if (chain.result?.objectId) {
      const props = (await within(
        s.send('Runtime.getProperties', { objectId: chain.result.objectId, ownProperties: true }),
      )) as { result?: { name: string; value?: { objectId?: string } }[] };
      for (const p of props.result ?? []) {
        if (!/^\d+$/.test(p.name) || !p.value?.objectId) continue;
        for (const t of await types(p.value.objectId)) if (RELEVANT.has(t)) delegated.add(t);
      }
    }
    return { own, delegated: [...delegated] };
  } catch (err) {
    log.debug({ err: err instanceof Error ? err.message : String(err) }, 'upload: CDP listener read failed');
    return null;
  } finally {
    clearTimeout(timer);
    if (session) {
      await session.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => {});
      await session.detach().catch(() => {});
    }
  }
}
