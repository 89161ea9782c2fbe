import { join } from 'node:path';
import { z } from 'zod';
import { ops } from '../../../engine/api.js';
import type { SnapshotResult } from '../../../snapshot/index.js';
import type { Data } from '../envelope.js';
import { captureSeq, dataUrl, nextSeq, taskDir, writeEvidence } from '../evidence.js';
import {
  type FrameSplit,
  renderBrowserState,
  renderTabBlock,
  STATE_ATTRIBUTES,
} from '../render/browser-state.js';
import type { IndexSnapshot } from '../tasks.js';
import { budget, type HttpMethod, type MethodContext, method, plainFailure, sessionOf } from './common.js';
import { tabsOf, wireTabs } from './shared-reads.js';

const SNAPSHOT_TIMEOUT_MS = 20_000;

async function walk(ctx: MethodContext, viewportExpansion: number): Promise<SnapshotResult> {
  const page = sessionOf(ctx).page();
  const whole = viewportExpansion < 0;
  return ops.snapshot.call(
    page,
    {
      viewport: !whole,
      viewport_margin: whole ? undefined : viewportExpansion,
      include_frames: true,
      attributes: STATE_ATTRIBUTES,
    },
    { timeoutMs: budget(undefined, SNAPSHOT_TIMEOUT_MS) },
  );
}

/** The `[N]` / `*[N]` prefix stripped, so a line diff is not just renumbering. */
function unindexed(line: string): string {
  return line.replace(/^(\t*)\*?\[\d+\]/, '$1');
}

const getBrowserState = method({
  name: 'get_browser_state',
  summary: '读取页面：带索引 [N] 的元素文本（动作方法用的索引）、标签页、视口位置，并存下截图和文本',
  ops: [ops.snapshot, ops.frames, ops.listTabs, ops.screenshot],
  meta: {
    task: 'existing',
    compactDrop: ['browser_state', 'url', 'title'],
    reply: {
      url: '页面 URL（compact 模式不返回）',
      title: '页面标题（compact 模式不返回）',
      browser_state: '标签页块（compact 模式不返回）',
      text: '带索引的元素文本（§9.4）',
      tabs: '标签页：index, url, title, current',
      elements: '元素：index, tag, role, name, text, selector, ref, frame, actionable, covered, isNew',
      elementCount: '带索引的元素总数',
      elementsTruncated: 'elements 按 maxElements 截断了',
      pixels_above: '视口上方的像素',
      pixels_below: '视口下方的像素',
      viewport_height: '视口高度',
      page_height: '页面高度',
      frameCount: '框架数（主框架算一个）',
      frames: 'includeFrames 时：每个框架的块',
      seq: '证据序号（截图和状态文件共用）',
      screenshot: '截图的 GET 地址',
      screenshot_path: '截图在服务器上的路径（compact 模式不返回）',
      screenshot_error: '截图失败的原因',
      state_file: '状态文本文件的 GET 地址',
      indicesUsable: 'true：索引可用于动作方法',
      snapshotConsistent: 'true',
      snapshotAttempts: '1',
      snapshotStrict: '回显的 strictSnapshot',
      pageAppearsBlank: '页面没有文字',
      mediaCount: '图片、画布、视频的数量',
      mediaHint: '页面主要由图片组成时的提示',
      snapshotNote: '快照按字符预算截断时的说明',
    },
  },
  params: z.object({
    highlight: z.boolean().optional(),
    viewportExpansion: z.number().int().min(-1).optional(),
    includeElements: z.boolean().optional(),
    maxElements: z.number().int().min(0).max(10_000).optional(),
    includeFrames: z.boolean().optional(),
    strictSnapshot: z.boolean().optional(),
  }),
  async run(ctx, p) {
    const task = ctx.task!;
    const session = sessionOf(ctx);
    const page = session.page();
    const snap = await walk(ctx, p.viewportExpansion ?? 0);
    const prev = task.snapshot?.pageId === page.id ? new Set(task.snapshot.refs) : undefined;
    let split: FrameSplit | undefined;
    if (p.includeFrames) {
      const frames = await ops.frames.call(page, {});
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
    // The text file and the screenshot of the same seq are written side by side, not one after the other.
    const [, shot] = await Promise.all([
      writeEvidence(stateFile, `${browserState}\n\n${text}`),
      captureSeq(ctx.dataDir, task, page, seq),
    ]);

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
      frameCount: r.frames ? r.frames.length : Math.max(1, snap.frames),
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

const diffDomText = method({
  name: 'diff_dom_text',
  summary: '重新读取页面，与上次 get_browser_state 的文本逐行比较（不写文件）',
  ops: [ops.snapshot],
  meta: {
    task: 'existing',
    reply: {
      changed: '有没有变化',
      added: '新出现的行（最多 200 行）',
      removed: '消失的行（最多 200 行）',
      first: 'true：之前没有 get_browser_state，全部算新增',
    },
  },
  params: z.object({
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

const getInteractiveMap = method({
  name: 'get_interactive_map',
  summary: '上次 get_browser_state 的每个索引对应的元素：id、class、href、name、选择器',
  ops: [ops.readManyElements],
  meta: {
    task: 'existing',
    reply: {
      count: '元素个数',
      elements:
        '元素：index, tag, ref, selector, id, className, href, name, text, hasListeners（null：不知道）, listeners, frame, resolved（false：元素已不在）',
    },
  },
  params: z.object({}),
  async run(ctx) {
    const snap = requireSnapshot(ctx);
    const page = sessionOf(ctx).page();
    const read = ops.readManyElements.call(
      page,
      { refs: snap.refs, kind: 'identity' },
      { timeoutMs: 10_000 },
    );
    const identities = (await read.catch(() => snap.refs.map(() => null))) as ({
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

const getFormState = method({
  name: 'get_form_state',
  summary: '页面（或选择器范围内）所有表单字段的标签、类型、值和状态；密码值为 [redacted]',
  ops: [ops.formState],
  meta: {
    task: 'existing',
    reply: {
      count: '字段总数',
      fields:
        '字段：label, id, name, type, value, valueFrom, checked, disabled, readOnly, required, visible, invalid, placeholder',
      truncated: '按 max 截断了',
      errorCount: '无效字段数',
      errors: '无效字段：label, error',
    },
  },
  params: z.object({
    selector: z.string().min(1).optional(),
    includeHidden: z.boolean().optional(),
    max: z.number().int().min(1).max(2000).optional(),
  }),
  async run(ctx, p) {
    const found = await ops.formState.call(
      sessionOf(ctx).page(),
      { selector: p.selector },
      { timeoutMs: budget(undefined, SNAPSHOT_TIMEOUT_MS) },
    );
    const out: Data[] = found.map((f) => ({
      label: f.label,
      id: f.id,
      name: f.name,
      type: f.type,
      value: f.value,
      valueFrom: 'dom',
      checked: f.checked,
      disabled: f.disabled,
      readOnly: f.readonly,
      required: f.required,
      visible: true,
      invalid: f.invalid,
      placeholder: f.placeholder,
    }));
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

const listFrames = method({
  name: 'list_frames',
  summary: '页面的框架：序号（0 = 主框架，深度优先）、URL、name、层级和各自的元素索引范围',
  ops: [ops.frames, ops.snapshot],
  meta: {
    task: 'existing',
    reply: {
      count: '框架个数',
      frames: '框架：index, url, name, isMain, parentIndex, depth, elementCount, indexRange',
      indicesFrom: '元素计数来自哪次读取',
    },
  },
  params: z.object({ refresh: z.boolean().optional() }),
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
    const frames = await ops.frames.call(page, {});
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

export const STATE: HttpMethod[] = [
  getBrowserState,
  diffDomText,
  getInteractiveMap,
  getFormState,
  listFrames,
];
