import { z } from 'zod';
import type { SnapshotNode } from '../../../snapshot/index.js';
import type { Data } from '../envelope.js';
import { act, receiptData } from './act.js';
import { def, fail, type MethodContext, type MethodDef, sessionOf } from './common.js';

/**
 * DOM modals (§8.12) from the engine's page model: elements with role dialog / alertdialog (native
 * <dialog>, aria-modal layers and framework modals that declare their role). close_modal clicks a
 * button of the modal with trusted input and checks that the modal count dropped.
 */

const CLOSE_WORDS = /^(×|✕|x|close|cancel|dismiss|got it|ok|accept|关闭|取消|知道了|我知道了|确定|好的)$/i;

interface Modal {
  node: SnapshotNode;
  title: string;
  text: string;
  buttons: { name: string; ref?: string; actionable: boolean }[];
  blocking: boolean;
}

function flatText(n: SnapshotNode): string {
  if (n.role === 'text') return n.text ?? '';
  const own = [n.children.length === 0 ? n.name : '', n.text ?? ''].filter(Boolean).join(' ');
  return [own, ...n.children.map(flatText)].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

function findModals(root: SnapshotNode): Modal[] {
  const out: Modal[] = [];
  const walk = (n: SnapshotNode) => {
    if (n.role === 'dialog' || n.role === 'alertdialog') {
      const buttons: Modal['buttons'] = [];
      const collect = (c: SnapshotNode) => {
        if ((c.role === 'button' || (c.clickable && c.tag !== 'div')) && c.element_ref)
          buttons.push({ name: c.name || flatText(c), ref: c.element_ref, actionable: c.actionable });
        for (const k of c.children) collect(k);
      };
      collect(n);
      out.push({ node: n, title: n.name, text: flatText(n).slice(0, 300), buttons, blocking: !n.covered });
    }
    for (const c of n.children) walk(c);
  };
  walk(root);
  return out;
}

async function scan(ctx: MethodContext): Promise<Modal[]> {
  const snap = await sessionOf(ctx).page().snapshot({ include_frames: true }, { timeoutMs: 15_000 });
  return findModals(snap.model);
}

function wire(m: Modal): Data {
  return {
    kind: m.node.role,
    matchedBy: 'role',
    confidence: 'strict',
    blocking: m.blocking,
    title: m.title || undefined,
    text: m.text,
    buttons: m.buttons.map((b) => b.name),
    hasClose: m.buttons.some((b) => CLOSE_WORDS.test(b.name.trim())),
    frame: m.node.frame,
  };
}

const getModals = def({
  name: 'get_modals',
  task: 'existing',
  schema: z.object({}),
  async run(ctx) {
    const modals = await scan(ctx);
    const blocking = modals.filter((m) => m.blocking);
    const top = blocking[blocking.length - 1] ?? modals[modals.length - 1];
    return {
      count: modals.length,
      countStrict: modals.length,
      countHeuristic: 0,
      countBlocking: blocking.length,
      modals: modals.map(wire),
      top: top ? wire(top) : undefined,
      topIsBlocking: top ? top.blocking : undefined,
      scannedBy: 'role',
    };
  },
});

const closeModal = def({
  name: 'close_modal',
  task: 'existing',
  receipt: true,
  schema: z.object({
    which: z.string().optional(),
    title: z.string().optional(),
    button: z.string().optional(),
  }),
  async run(ctx, p) {
    const modals = await scan(ctx);
    let target: Modal | undefined;
    if (p.title) target = modals.find((m) => m.title.includes(p.title!) || m.text.includes(p.title!));
    else if (p.which === 'first') target = modals[0];
    else if (p.which?.startsWith('class:')) {
      throw fail(
        ctx.method,
        'ACTION_FAILED',
        'which=class:… 不受支持：弹层按角色识别，没有读取 class；请用 title',
        {
          notImplemented: ['which'],
        },
      );
    } else target = modals.filter((m) => m.blocking).pop() ?? modals[modals.length - 1];
    if (!target)
      return { closed: false, countBefore: modals.length, countAfter: modals.length, note: '没有找到弹层' };
    const pick = p.button
      ? (target.buttons.find((b) => b.name.trim() === p.button) ??
        target.buttons.find((b) => b.name.includes(p.button!)))
      : target.buttons.find((b) => CLOSE_WORDS.test(b.name.trim()));
    if (!pick?.ref) {
      throw fail(
        ctx.method,
        'ELEMENT_NOT_FOUND',
        `弹层里没有找到${p.button ? `按钮“${p.button}”` : '关闭类按钮'}；现有按钮：${target.buttons.map((b) => b.name).join(' / ') || '无'}`,
        {
          buttons: target.buttons.map((b) => b.name),
        },
      );
    }
    const a = await act(ctx, { element_ref: pick.ref }, { action: 'click' });
    const after = await scan(ctx);
    return {
      closed: after.length < modals.length,
      countBefore: modals.length,
      countAfter: after.length,
      clicked: pick.name,
      ...receiptData(a, { name: pick.name }),
    };
  },
});

export const MODALS: MethodDef[] = [getModals, closeModal];
