import { z } from 'zod';
import { ops, TabwrightError } from '../../../engine/api.js';
import type { Modal } from '../../../engine/semantics/modals.js';
import type { Data } from '../envelope.js';
import { type Acted, OBSERVE_MS, receiptData } from './act.js';
import {
  ACTION_TIMEOUT_MS,
  fail,
  type HttpMethod,
  type MethodContext,
  method,
  pageOf,
  sessionOf,
  urlOf,
} from './common.js';
import { CLICK_REPLY } from './replies.js';

/**
 * DOM modals (§8.12): the engine's page.modals / page.close_modal (role dialog / alertdialog:
 * native <dialog>, aria-modal layers and framework modals that declare their role), in this
 * door's wire shape. close_modal clicks with trusted input and checks that the modal count dropped.
 */

/** Each modal scan reads the whole page model, iframes included. */
const SCAN_TIMEOUT_MS = 15_000;

function wire(m: Modal): Data {
  return {
    kind: m.role,
    matchedBy: m.matched_by ?? 'role',
    confidence: (m.matched_by ?? 'role') === 'role' ? 'strict' : 'heuristic',
    blocking: m.blocking,
    title: m.title || undefined,
    text: m.text,
    buttons: m.buttons.map((b) => b.name),
    hasClose: m.has_close,
    frame: m.frame,
  };
}

const MODAL_FIELDS =
  'kind（dialog / alertdialog）, matchedBy, confidence, blocking, title, text, buttons, hasClose, frame';

const getModals = method({
  name: 'get_modals',
  summary:
    '页面上的 DOM 弹层（role 为 dialog / alertdialog，含 iframe；没有 role 的弹层按 aria-modal、常见框架的 class、盖住大半个视口的固定层识别）：标题、文字、按钮，哪个挡住了页面',
  ops: [ops.modals],
  meta: {
    task: 'existing',
    reply: {
      count: '弹层个数',
      countStrict: '按角色识别的个数',
      countHeuristic: '按弹层外观识别的个数（aria-modal、class、几何）',
      countBlocking: '挡住页面的弹层个数',
      modals: `弹层：${MODAL_FIELDS}`,
      top: '最上面的弹层（最后一个挡住页面的，否则最后一个）',
      topIsBlocking: 'top 是否挡住页面',
      scannedBy: 'role+layers',
    },
  },
  params: z.object({}),
  async run(ctx) {
    const modals = await ops.modals.call(pageOf(ctx), {}, { timeoutMs: SCAN_TIMEOUT_MS });
    const blocking = modals.filter((m) => m.blocking);
    const top = blocking[blocking.length - 1] ?? modals[modals.length - 1];
    return {
      count: modals.length,
      countStrict: modals.filter((m) => (m.matched_by ?? 'role') === 'role').length,
      countHeuristic: modals.filter((m) => (m.matched_by ?? 'role') !== 'role').length,
      countBlocking: blocking.length,
      modals: modals.map(wire),
      top: top ? wire(top) : undefined,
      topIsBlocking: top ? top.blocking : undefined,
      scannedBy: 'role+layers',
    };
  },
});

async function tabsAround(ctx: MethodContext) {
  const session = sessionOf(ctx);
  return { url: await urlOf(session.page()).catch(() => ''), tabs: session.pages().length };
}

const closeModal = method({
  name: 'close_modal',
  summary: '用真实点击关闭弹层（默认最上面的；title 指定弹层，button 指定按钮），并核对弹层数减少',
  ops: [ops.closeModal],
  meta: {
    task: 'existing',
    evidence: true,
    receipt: true,
    reply: {
      closed: '弹层数是否减少',
      countBefore: '点击前的弹层数',
      countAfter: '点击后的弹层数',
      clicked: '点击的按钮（没有关闭按钮时为 (Escape) 或 (mask)）',
      closedBy: 'button / escape / mask：怎么关掉的',
      note: '没有找到弹层时的说明',
      ...CLICK_REPLY,
    },
  },
  params: z.object({
    which: z.string().optional(),
    title: z.string().optional(),
    button: z.string().optional(),
  }),
  async run(ctx, p) {
    if (!p.title && p.which?.startsWith('class:')) {
      throw fail(
        ctx.method,
        'ACTION_FAILED',
        'which=class:… 不受支持：弹层按角色识别，没有读取 class；请用 title',
        {
          notImplemented: ['which'],
        },
      );
    }
    const before = await tabsAround(ctx);
    let r: Awaited<ReturnType<typeof ops.closeModal.call>>;
    try {
      r = await ops.closeModal.call(
        pageOf(ctx),
        {
          title: p.title || undefined,
          which: p.which === 'first' ? 'first' : undefined,
          button: p.button || undefined,
          observe_ms: OBSERVE_MS,
          observe_min_ms: OBSERVE_MS,
        },
        // Two scans and one click.
        { timeoutMs: 2 * SCAN_TIMEOUT_MS + ACTION_TIMEOUT_MS + OBSERVE_MS },
      );
    } catch (err) {
      if (err instanceof TabwrightError && err.details.reason === 'modal_button_not_found') {
        const buttons = err.details.buttons as string[];
        throw fail(
          ctx.method,
          'ELEMENT_NOT_FOUND',
          `弹层里没有找到${p.button ? `按钮“${p.button}”` : '关闭类按钮'}；现有按钮：${buttons.join(' / ') || '无'}`,
          { buttons },
        );
      }
      throw err;
    }
    if (r.modal === null)
      return { closed: false, countBefore: r.count_before, countAfter: r.count_after, note: '没有找到弹层' };
    const acted: Acted = { receipt: r.receipt, before, after: await tabsAround(ctx) };
    return {
      closed: r.closed,
      countBefore: r.count_before,
      countAfter: r.count_after,
      clicked: r.clicked,
      closedBy: r.closed_by,
      ...receiptData(acted, { name: r.clicked }),
    };
  },
});

export const MODALS: HttpMethod[] = [getModals, closeModal];
