import type { Target } from '../../../engine/actions/types.js';
import { type OperationOptions, ops } from '../../../engine/api.js';
import type { Page } from '../../../engine/page.js';
import type { Session } from '../../../engine/session.js';
import type { WaitConditions } from '../../../engine/waits.js';
import { MethodTable, methodKit, targetFrom } from '../../kit/index.js';
import { ACTION_PARAMS } from '../protocol/actions.js';
import type { PipeAction } from '../protocol/constants.js';
import { PipeError } from '../protocol/errors.js';
import { type AomNode, aomNodes, MAX_AOM_NODES } from './aom.js';

/**
 * The 14 pipe actions as a table over engine operations (src/engine/ops): each row is the action's
 * wire schema (the protocol's, shared with the agent SDK), the operations it runs, and a handler that
 * renames params into operation input and shapes `data`. No browser logic lives here.
 */

export interface ActionResult {
  data: Record<string, unknown>;
  aom_snapshot?: AomNode[];
}

/** What a row gets besides its params: one command's view of the session (executor.ts). */
export interface ActionContext {
  readonly session: Session;
  /** The engine deadline of the command. */
  readonly opts: OperationOptions;
  /**
   * The page the command acts on (the main page, or a zombie by id), once expected_domain is allowed
   * and names the host the command acts on: the page's, or with `loads` that URL's (navigate).
   * `blankOk`: a page without a host yet passes (zombieKill).
   */
  page(zombieId: string | undefined, how?: { loads?: string; blankOk?: boolean }): Page;
  /** The expected_domain check for a command that loads `url` on no existing page (zombieSpawn). */
  loads(url: string): void;
  /** The MAC policy's storage key rule (after the domain checks, like every refusal order). */
  storageKey(key: string): void;
  /** Zombie pages of the session: registered by spawn, forgotten by kill. */
  readonly zombies: { add(page: Page): string; forget(id: string): void };
}

/** What only the pipe needs of a row: nothing yet (the wire name is the action). */
export type ActionMeta = Record<string, never>;

const action = methodKit<ActionContext, ActionMeta, ActionResult>();
const meta: ActionMeta = {};

/** The pipe's two target fields, through the kit's one mapper (the schema already asks for exactly one). */
function targetOf(p: { ref?: string; selector?: string }, name: PipeAction): Target {
  return targetFrom(p, { ref: 'ref', selector: 'selector' }, { method: name, required: true })!;
}

/** Text and HTML are cut to this many UTF-8 bytes so a response stays under the 1 MB line limit. */
export const MAX_CONTENT_BYTES = 900_000;

function fit(s: string): { text: string; truncated: boolean } {
  if (s.length * 3 <= MAX_CONTENT_BYTES || Buffer.byteLength(s, 'utf8') <= MAX_CONTENT_BYTES)
    return { text: s, truncated: false };
  let cut = Buffer.from(s, 'utf8').subarray(0, MAX_CONTENT_BYTES).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return { text: cut, truncated: true };
}

const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;

const click = action({
  name: 'click',
  params: ACTION_PARAMS.click,
  ops: [ops.click],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    const r = await ops.click.call(page, { target: targetOf(p, 'click') }, ctx.opts);
    return {
      data: {
        url: page.url(),
        changed: r.changed,
        navigated: r.changes.navigated,
        element_ref: r.target.element_ref ?? null,
      },
    };
  },
});

const type = action({
  name: 'type',
  params: ACTION_PARAMS.type,
  ops: [ops.type],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    const r = await ops.type.call(
      page,
      { target: targetOf(p, 'type'), text: p.text, replace: p.clear === true, submit: p.submit === true },
      ctx.opts,
    );
    return { data: { url: page.url(), changed: r.changed, element_ref: r.target.element_ref ?? null } };
  },
});

const navigate = action({
  name: 'navigate',
  params: ACTION_PARAMS.navigate,
  ops: [ops.open],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id, { loads: p.url });
    const nav = await ops.open.call(page, { url: p.url, wait_until: 'load' }, ctx.opts);
    return { data: { url: nav.url, title: nav.title, status: nav.status } };
  },
});

const getText = action({
  name: 'getText',
  params: ACTION_PARAMS.getText,
  ops: [ops.readPageText],
  meta,
  async run(ctx, p) {
    const r = await ops.readPageText.call(ctx.page(p.zombie_id), { selector: p.selector }, ctx.opts);
    const { text, truncated } = fit(r.content);
    return { data: { text, truncated, match_count: r.match_count } };
  },
});

const getHtml = action({
  name: 'getHtml',
  params: ACTION_PARAMS.getHtml,
  ops: [ops.readPageHtml],
  meta,
  async run(ctx, p) {
    const r = await ops.readPageHtml.call(ctx.page(p.zombie_id), { selector: p.selector }, ctx.opts);
    const { text, truncated } = fit(r.content);
    return { data: { html: text, truncated, match_count: r.match_count } };
  },
});

const waitForSelector = action({
  name: 'waitForSelector',
  params: ACTION_PARAMS.waitForSelector,
  ops: [ops.wait],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    const { selector } = p;
    const state = p.state ?? 'visible';
    const conditions: WaitConditions =
      state === 'attached'
        ? { selector_present: selector }
        : state === 'visible'
          ? { selector_present: { selector, visible: true } }
          : { selector_absent: { selector, visible: true } };
    // The action's own timeout (default 10 s) instead of the command deadline.
    const timeoutMs = Math.max(1, p.timeout_ms ?? 10_000);
    const r = await ops.wait.call(page, { conditions }, { ...ctx.opts, timeoutMs });
    return { data: { selector, state, waited_ms: r.waited_ms } };
  },
});

const pageScreenshot = action({
  name: 'pageScreenshot',
  params: ACTION_PARAMS.pageScreenshot,
  ops: [ops.screenshot],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    const full_page = p.full_page === true;
    let shot = await ops.screenshot.call(page, { full_page, format: p.format ?? 'png' }, ctx.opts);
    // Keep the response under the 1 MB line limit: fall back to JPEG of lower quality.
    for (const quality of [70, 40, 20]) {
      if (base64Length(shot.data.length) <= MAX_CONTENT_BYTES) break;
      shot = await ops.screenshot.call(page, { full_page, format: 'jpeg', quality }, ctx.opts);
    }
    if (base64Length(shot.data.length) > MAX_CONTENT_BYTES) {
      throw new PipeError(
        'invalid_params',
        'The screenshot does not fit in one 1 MB message even as a low-quality JPEG. Take a viewport screenshot (full_page false).',
      );
    }
    return {
      data: {
        image: shot.data.toString('base64'),
        media_type: shot.mediaType,
        width: shot.width,
        height: shot.height,
        truncated: shot.truncated,
      },
    };
  },
});

const select = action({
  name: 'select',
  params: ACTION_PARAMS.select,
  ops: [ops.select],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    const choice =
      p.value !== undefined
        ? { values: [p.value] }
        : p.label !== undefined
          ? { labels: [p.label] }
          : { indexes: [Number(p.index)] };
    const r = await ops.select.call(page, { target: targetOf(p, 'select'), ...choice }, ctx.opts);
    return { data: { url: page.url(), verified: r.verified, value: r.changes.value?.after ?? null } };
  },
});

const scrollTo = action({
  name: 'scrollTo',
  params: ACTION_PARAMS.scrollTo,
  ops: [ops.scroll, ops.scrollTo],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    if (p.x !== undefined) {
      const pos = await ops.scrollTo.call(page, { x: p.x, y: Number(p.y) }, ctx.opts);
      return { data: { x: pos.x, y: pos.y } };
    }
    const r = await ops.scroll.call(page, { target: targetOf(p, 'scrollTo'), into_view: true }, ctx.opts);
    return { data: { verified: r.verified, element_ref: r.target.element_ref ?? null } };
  },
});

const getAomSnapshot = action({
  name: 'getAomSnapshot',
  params: ACTION_PARAMS.getAomSnapshot,
  ops: [ops.snapshot],
  meta,
  async run(ctx, p) {
    const interactive = p.interactive_only === true;
    const snap = await ops.snapshot.call(ctx.page(p.zombie_id), { interactive_only: interactive }, ctx.opts);
    const nodes = aomNodes(snap.model, interactive);
    const truncated = nodes.length > MAX_AOM_NODES || snap.truncated;
    return {
      data: { url: snap.url, title: snap.title, count: Math.min(nodes.length, MAX_AOM_NODES), truncated },
      aom_snapshot: nodes.slice(0, MAX_AOM_NODES),
    };
  },
});

const storageSet = action({
  name: 'storageSet',
  params: ACTION_PARAMS.storageSet,
  ops: [ops.storageWrite],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    ctx.storageKey(p.key);
    const area = p.area ?? 'local';
    await ops.storageWrite.call(page, { area, key: p.key, value: p.value }, ctx.opts);
    return { data: { key: p.key, area, stored: true } };
  },
});

const storageGet = action({
  name: 'storageGet',
  params: ACTION_PARAMS.storageGet,
  ops: [ops.storageRead],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id);
    ctx.storageKey(p.key);
    const area = p.area ?? 'local';
    const value = await ops.storageRead.call(page, { area, key: p.key }, ctx.opts);
    return { data: { key: p.key, area, value: typeof value === 'string' ? value : null } };
  },
});

const zombieSpawn = action({
  name: 'zombieSpawn',
  params: ACTION_PARAMS.zombieSpawn,
  ops: [ops.newTab, ops.open, ops.closeTab],
  meta,
  async run(ctx, p) {
    ctx.loads(p.url);
    // A background page: never activated or focused.
    const page = await ops.newTab.call(ctx.session, { activate: false }, ctx.opts);
    try {
      const nav = await ops.open.call(page, { url: p.url, wait_until: 'load' }, ctx.opts);
      const zombie_id = ctx.zombies.add(page);
      return { data: { zombie_id, url: nav.url, title: nav.title, status: nav.status } };
    } catch (err) {
      await ops.closeTab.call(ctx.session, { page_id: page.id }).catch(() => {});
      throw err;
    }
  },
});

const zombieKill = action({
  name: 'zombieKill',
  params: ACTION_PARAMS.zombieKill,
  ops: [ops.closeTab],
  meta,
  async run(ctx, p) {
    const page = ctx.page(p.zombie_id, { blankOk: true });
    ctx.zombies.forget(p.zombie_id);
    await ops.closeTab.call(ctx.session, { page_id: page.id });
    return { data: { zombie_id: p.zombie_id, killed: true } };
  },
});

/** Every action of protocol 1.0, by wire name. */
export const PIPE_TABLE = new MethodTable([
  click,
  type,
  navigate,
  getText,
  getHtml,
  waitForSelector,
  pageScreenshot,
  select,
  scrollTo,
  getAomSnapshot,
  storageSet,
  storageGet,
  zombieSpawn,
  zombieKill,
]);
