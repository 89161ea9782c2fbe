import { join } from 'node:path';
import { z } from 'zod';
import { readElements } from '../../../engine/element-reads.js';
import { pageFrames } from '../../../engine/frames.js';
import type { SnapshotNode, SnapshotResult } from '../../../snapshot/index.js';
import type { Data } from '../envelope.js';
import { captureSeq, dataUrl, nextSeq, taskDir, writeEvidence } from '../evidence.js';
import { type FrameSplit, renderBrowserState, renderTabBlock } from '../render/browser-state.js';
import type { IndexSnapshot } from '../tasks.js';
import { budget, def, type MethodContext, type MethodDef, plainFailure, sessionOf } from './common.js';
import { tabsOf, wireTabs } from './shared-reads.js';

const SNAPSHOT_TIMEOUT_MS = 20_000;

async function walk(ctx: MethodContext, viewportExpansion: number, scope?: string): Promise<SnapshotResult> {
  const page = sessionOf(ctx).page();
  const whole = viewportExpansion < 0;
  return page.snapshot(
    {
      viewport: !whole,
      viewport_margin: whole ? undefined : viewportExpansion,
      include_frames: true,
      scope_selector: scope,
    },
    { timeoutMs: budget(undefined, SNAPSHOT_TIMEOUT_MS) },
  );
}

/** The `[N]` / `*[N]` prefix stripped, so a line diff is not just renumbering. */
function unindexed(line: string): string {
  return line.replace(/^(\t*)\*?\[\d+\]/, '$1');
}

const getBrowserState = def({
  name: 'get_browser_state',
  task: 'existing',
  schema: z.object({
    highlight: z.boolean().optional(),
    viewportExpansion: z.number().int().min(-1).optional(),
    includeElements: z.boolean().optional(),
    maxElements: z.number().int().min(0).max(10_000).optional(),
    includeFrames: z.boolean().optional(),
    strictSnapshot: z.boolean().optional(),
  }),
  compactDrop: ['browser_state', 'url', 'title'],
  async run(ctx, p) {
    const task = ctx.task!;
    const session = sessionOf(ctx);
    const page = session.page();
    const snap = await walk(ctx, p.viewportExpansion ?? 0);
    const prev = task.snapshot?.pageId === page.id ? new Set(task.snapshot.refs) : undefined;
    let split: FrameSplit | undefined;
    if (p.includeFrames) {
      const frames = pageFrames(page);
      split = {
        label: (fid) => {
          const i = fid === undefined ? 0 : frames.findIndex((f) => f.id === fid);
          return { index: i < 0 ? frames.length : i, url: i < 0 ? '' : frames[i]!.url };
        },
      };
    }
    let r = renderBrowserState(snap.model, prev, split);
    // A new document (navigation, reload) shares no element with the previous read: nothing is "new" then.
    if (prev && r.elements.length > 0 && r.elements.every((e) => e.isNew))
      r = renderBrowserState(snap.model, undefined, split);
    const text = r.lines.join('\n');
    const tabs = await tabsOf(session);
    const browserState = renderTabBlock(tabs);

    task.snapshot = {
      pageId: page.id,
      refs: r.elements.map((e) => e.ref),
      info: r.elements.map((e) => ({
        tag: e.tag,
        text: e.text,
        role: e.role,
        name: e.name,
        frame: e.frame,
        selector: e.selector,
      })),
      lines: r.lines.map(unindexed),
      at: Date.now(),
    } satisfies IndexSnapshot;

    const seq = await nextSeq(ctx.dataDir, task);
    const stateFile = join(taskDir(ctx.dataDir, task.id), `${seq}.txt`);
    await writeEvidence(stateFile, `${browserState}\n\n${text}`);
    const shot = await captureSeq(ctx.dataDir, task, page, seq);

    const vp = snap.viewport;
    const includeElements = p.includeElements ?? true;
    const max = p.maxElements ?? 200;
    const data: Data = {
      url: snap.url,
      title: snap.title,
      browser_state: browserState,
      text,
      tabs: wireTabs(tabs),
      elements: includeElements
        ? r.elements.slice(0, max).map((e) => ({
            index: e.index,
            tag: e.tag,
            role: e.role,
            name: e.name || undefined,
            text: e.text || undefined,
            selector: e.selector,
            ref: e.ref,
            frame: e.frame,
            actionable: e.actionable,
            covered: e.covered || undefined,
            isNew: e.isNew || undefined,
          }))
        : undefined,
      elementCount: r.elements.length,
      elementsTruncated: includeElements && r.elements.length > max ? true : undefined,
      pixels_above: Math.max(0, Math.round(vp.scrollY)),
      pixels_below: Math.max(0, Math.round(vp.pageHeight - vp.scrollY - vp.height)),
      viewport_height: vp.height,
      page_height: vp.pageHeight,
      frameCount: r.frames ? r.frames.length : snap.frames > 0 ? snap.frames + 1 : undefined,
      frames: r.frames,
      ...shot,
      state_file: dataUrl(ctx.dataDir, stateFile),
      indicesUsable: true,
      snapshotConsistent: true,
      snapshotAttempts: 1,
      snapshotStrict: p.strictSnapshot ?? false,
      pageAppearsBlank: text.trim() === '' ? true : undefined,
      mediaCount: r.mediaCount,
      mediaHint:
        r.mediaCount > 0 && r.elements.length === 0 && text.trim() === ''
          ? '页面主要由图片/画布组成：数据可能在图片里（可用 get_element_screenshot 查看）'
          : undefined,
    };
    if (snap.truncated) data.snapshotNote = '页面很大，快照按字符预算截断了部分内容；可以滚动后再读';
    return data;
  },
});

const diffDomText = def({
  name: 'diff_dom_text',
  task: 'existing',
  schema: z.object({
    highlight: z.boolean().optional(),
    viewportExpansion: z.number().int().min(-1).optional(),
  }),
  async run(ctx, p) {
    const task = ctx.task!;
    const snap = await walk(ctx, p.viewportExpansion ?? 0);
    const now = renderBrowserState(snap.model, undefined).lines.map(unindexed);
    const before = task.snapshot?.lines ?? [];
    const count = new Map<string, number>();
    for (const l of before) count.set(l, (count.get(l) ?? 0) + 1);
    const added: string[] = [];
    for (const l of now) {
      const c = count.get(l) ?? 0;
      if (c > 0) count.set(l, c - 1);
      else added.push(l);
    }
    const removed: string[] = [];
    for (const [l, c] of count) for (let i = 0; i < c; i++) removed.push(l);
    return {
      changed: added.length > 0 || removed.length > 0,
      added: added.slice(0, 200).map((l) => l.trim()),
      removed: removed.slice(0, 200).map((l) => l.trim()),
      first: task.snapshot === undefined,
    };
  },
});

function requireSnapshot(ctx: MethodContext): IndexSnapshot {
  const snap = ctx.task?.snapshot;
  if (!snap) {
    throw plainFailure(
      `${ctx.method} 失败：索引越界: 0,当前没有页面快照,请先调用 get_browser_state 获取元素索引`,
      'STALE_ELEMENT',
    );
  }
  return snap;
}

const getInteractiveMap = def({
  name: 'get_interactive_map',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    const snap = requireSnapshot(ctx);
    const page = sessionOf(ctx).page();
    const identities = (await readElements(page, snap.refs, 'identity', null, { timeoutMs: 10_000 }).catch(
      () => snap.refs.map(() => null),
    )) as ({
      id: string | null;
      className: string | null;
      href: string | null;
      name: string | null;
    } | null)[];
    const elements = snap.refs.map((ref, index) => {
      const info = snap.info[index]!;
      const attrs = identities[index];
      return {
        index,
        tag: info.tag,
        ref,
        selector: info.selector,
        id: attrs?.id ?? undefined,
        className: attrs?.className ?? undefined,
        href: attrs?.href ?? undefined,
        name: attrs?.name ?? undefined,
        text: info.text || info.name || undefined,
        hasListeners: null,
        listeners: [],
        frame: info.frame,
        resolved: attrs === null ? false : undefined,
      };
    });
    return { count: elements.length, elements };
  },
});

const FIELD_TAGS = new Set(['input', 'textarea', 'select']);

function* fields(n: SnapshotNode): Generator<SnapshotNode> {
  if (FIELD_TAGS.has(n.tag) || (n.interactive && ['checkbox', 'radio', 'switch'].includes(n.role))) {
    yield n;
    return;
  }
  for (const c of n.children) yield* fields(c);
}

const getFormState = def({
  name: 'get_form_state',
  task: 'existing',
  schema: z.object({
    selector: z.string().min(1).optional(),
    includeHidden: z.boolean().optional(),
    max: z.number().int().min(1).max(2000).optional(),
  }),
  async run(ctx, p) {
    const snap = await walk(ctx, -1, p.selector);
    const out: Data[] = [];
    for (const n of fields(snap.model)) {
      const a = n.attrs ?? {};
      const type = (a.type ?? (n.tag === 'input' ? 'text' : n.tag)).toLowerCase();
      const st = n.states ?? {};
      out.push({
        label: n.name || undefined,
        id: n.selector_hint?.startsWith('#') ? n.selector_hint.slice(1) : undefined,
        name: a.name,
        type,
        value:
          type === 'password' && n.value
            ? '[redacted]'
            : (n.value ?? (st.checked !== undefined ? undefined : '')),
        valueFrom: 'dom',
        checked: st.checked !== undefined ? st.checked === true : undefined,
        disabled: st.disabled === true,
        readOnly: st.readonly === true,
        required: st.required === true,
        visible: true,
        invalid: st.invalid === true,
        placeholder: a.placeholder,
      });
    }
    const max = p.max ?? 200;
    const errors = out.filter((f) => f.invalid).map((f) => ({ label: f.label ?? f.name, error: 'invalid' }));
    return {
      count: out.length,
      fields: out.slice(0, max),
      truncated: out.length > max ? true : undefined,
      errorCount: errors.length,
      errors,
    };
  },
});

const listFrames = def({
  name: 'list_frames',
  task: 'existing',
  schema: z.object({ refresh: z.boolean().optional() }),
  async run(ctx, p) {
    const task = ctx.task!;
    const page = sessionOf(ctx).page();
    // Element counts per frame: from a fresh read (refresh, the default) or from the last get_browser_state.
    let frameOfIndex: (string | undefined)[];
    if (p.refresh ?? true) {
      const snap = await walk(ctx, -1);
      frameOfIndex = renderBrowserState(snap.model, undefined).elements.map((e) => e.frame);
    } else {
      frameOfIndex = task.snapshot?.pageId === page.id ? task.snapshot.info.map((i) => i.frame) : [];
    }
    const frames = pageFrames(page);
    const indexOfId = new Map(frames.map((f, i) => [f.id, i]));
    return {
      count: frames.length,
      frames: frames.map((f, i) => {
        const mine = frameOfIndex.flatMap((fr, idx) =>
          (i === 0 ? fr === undefined : fr === f.id) ? [idx] : [],
        );
        return {
          index: i,
          url: f.url,
          name: f.name || undefined,
          isMain: i === 0,
          parentIndex: f.parentId === null ? undefined : indexOfId.get(f.parentId),
          depth: f.depth,
          elementCount: mine.length,
          indexRange: mine.length > 0 ? `${mine[0]}..${mine[mine.length - 1]}` : undefined,
        };
      }),
      indicesFrom:
        (p.refresh ?? true)
          ? 'fresh read (indices of the last get_browser_state unchanged)'
          : 'last get_browser_state',
    };
  },
});

export const STATE: MethodDef[] = [getBrowserState, diffDomText, getInteractiveMap, getFormState, listFrames];
