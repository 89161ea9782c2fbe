import type { Target } from '../../../engine/actions/types.js';
import { readHtml, readText, scrollPageTo } from '../../../engine/content.js';
import type { Page } from '../../../engine/page.js';
import type { Session } from '../../../engine/session.js';
import type { WaitConditions } from '../../../engine/waits.js';
import type { SnapshotNode } from '../../../snapshot/index.js';
import { type ActionParams, hostOf } from '../protocol/actions.js';
import type { PipeAction } from '../protocol/constants.js';
import { PipeError } from '../protocol/errors.js';
import { toPipeError } from './error-map.js';

/** One node of `aom_snapshot`. */
export interface AomNode {
  ref: string | null;
  role: string;
  name: string;
  value?: string;
  states?: Record<string, unknown>;
}

export interface ActionResult {
  data: Record<string, unknown>;
  aom_snapshot?: AomNode[];
}

/** Text and HTML are cut to this many UTF-8 bytes so a response stays under the 1 MB line limit. */
export const MAX_CONTENT_BYTES = 900_000;
export const MAX_AOM_NODES = 3_000;

/**
 * Maps the 14 pipe actions onto engine calls for one session: the main page
 * plus zombie pages (background pages of the same session, never activated,
 * under the same origin policy). No browser logic here.
 */
export class PipeExecutor {
  private readonly zombies = new Map<string, Page>();
  private zombieCount = 0;

  constructor(
    readonly session: Session,
    private readonly mainPage: Page,
    private readonly actionTimeoutMs: number,
  ) {}

  /** The page a command acts on. */
  pageFor(zombieId: string | undefined): Page {
    if (zombieId === undefined) return this.mainPage;
    const page = this.zombies.get(zombieId);
    if (!page || page.closed) {
      this.zombies.delete(zombieId);
      throw new PipeError(
        'invalid_params',
        `No zombie page "${zombieId}" (never spawned, killed, or closed by itself). Spawn one with zombieSpawn.`,
      );
    }
    return page;
  }

  /**
   * The host a command acts on, for the expected_domain check: the target
   * URL's host for navigate and zombieSpawn, else the host of the page
   * (null for zombieKill on a page that has no host yet).
   */
  actingHost(action: PipeAction, params: Record<string, unknown>): string | null {
    if (action === 'navigate' || action === 'zombieSpawn') return hostOf(String(params.url));
    const host = hostOf(this.pageFor(params.zombie_id as string | undefined).url());
    if (action === 'zombieKill' && host === '') return null;
    return host;
  }

  private opts(timeoutMs = this.actionTimeoutMs) {
    return { timeoutMs };
  }

  async execute<A extends PipeAction>(action: A, params: ActionParams[A]): Promise<ActionResult> {
    try {
      return await this.run(action, params as ActionParams[PipeAction] & Record<string, unknown>);
    } catch (err) {
      throw toPipeError(err, { navigation: action === 'navigate' || action === 'zombieSpawn' });
    }
  }

  private async run(action: PipeAction, p: Record<string, unknown>): Promise<ActionResult> {
    const zombieId = p.zombie_id as string | undefined;
    switch (action) {
      case 'click': {
        const page = this.pageFor(zombieId);
        const r = await page.act(target(p), { action: 'click' }, this.opts());
        return {
          data: {
            url: page.url(),
            changed: r.changed,
            navigated: r.changes.navigated,
            element_ref: r.target.element_ref ?? null,
          },
        };
      }
      case 'type': {
        const page = this.pageFor(zombieId);
        const r = await page.act(
          target(p),
          { action: 'type', text: String(p.text), replace: p.clear === true, submit: p.submit === true },
          this.opts(),
        );
        return { data: { url: page.url(), changed: r.changed, element_ref: r.target.element_ref ?? null } };
      }
      case 'navigate': {
        const page = this.pageFor(zombieId);
        const nav = await page.open(String(p.url), 'load', this.opts());
        return { data: { url: nav.url, title: nav.title, status: nav.status } };
      }
      case 'getText': {
        const r = await readText(this.pageFor(zombieId), p.selector as string | undefined, this.opts());
        const { text, truncated } = fit(r.content);
        return { data: { text, truncated, match_count: r.match_count } };
      }
      case 'getHtml': {
        const r = await readHtml(this.pageFor(zombieId), p.selector as string | undefined, this.opts());
        const { text, truncated } = fit(r.content);
        return { data: { html: text, truncated, match_count: r.match_count } };
      }
      case 'waitForSelector': {
        const page = this.pageFor(zombieId);
        const selector = String(p.selector);
        const state = (p.state as 'attached' | 'visible' | 'hidden' | undefined) ?? 'visible';
        const cond: WaitConditions =
          state === 'attached'
            ? { selector_present: selector }
            : state === 'visible'
              ? { selector_present: { selector, visible: true } }
              : { selector_absent: { selector, visible: true } };
        const timeoutMs = Math.max(1, (p.timeout_ms as number | undefined) ?? 10_000);
        const r = await page.wait(cond, {}, this.opts(timeoutMs));
        return { data: { selector, state, waited_ms: r.waited_ms } };
      }
      case 'pageScreenshot': {
        const page = this.pageFor(zombieId);
        const format = (p.format as 'png' | 'jpeg' | undefined) ?? 'png';
        let shot = await page.screenshot({ full_page: p.full_page === true, format }, this.opts());
        // Keep the response under the 1 MB line limit: fall back to JPEG of lower quality.
        for (const quality of [70, 40, 20]) {
          if (Math.ceil(shot.data.length / 3) * 4 <= MAX_CONTENT_BYTES) break;
          shot = await page.screenshot(
            { full_page: p.full_page === true, format: 'jpeg', quality },
            this.opts(),
          );
        }
        if (Math.ceil(shot.data.length / 3) * 4 > MAX_CONTENT_BYTES) {
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
      }
      case 'select': {
        const page = this.pageFor(zombieId);
        const spec =
          p.value !== undefined
            ? { action: 'select' as const, values: [String(p.value)] }
            : p.label !== undefined
              ? { action: 'select' as const, labels: [String(p.label)] }
              : { action: 'select' as const, indexes: [Number(p.index)] };
        const r = await page.act(target(p), spec, this.opts());
        return { data: { url: page.url(), verified: r.verified, value: r.changes.value?.after ?? null } };
      }
      case 'scrollTo': {
        const page = this.pageFor(zombieId);
        if (p.x !== undefined) {
          const pos = await scrollPageTo(page, Number(p.x), Number(p.y), this.opts());
          return { data: { x: pos.x, y: pos.y } };
        }
        const r = await page.act(target(p), { action: 'scroll', into_view: true }, this.opts());
        return { data: { verified: r.verified, element_ref: r.target.element_ref ?? null } };
      }
      case 'getAomSnapshot': {
        const page = this.pageFor(zombieId);
        const snap = await page.snapshot({ interactive_only: p.interactive_only === true }, this.opts());
        const nodes = aomNodes(snap.model, p.interactive_only === true);
        const truncated = nodes.length > MAX_AOM_NODES || snap.truncated;
        return {
          data: { url: snap.url, title: snap.title, count: Math.min(nodes.length, MAX_AOM_NODES), truncated },
          aom_snapshot: nodes.slice(0, MAX_AOM_NODES),
        };
      }
      case 'storageSet':
      case 'storageGet':
        return this.storage(action, p);
      case 'zombieSpawn': {
        const page = await this.session.newPage({ activate: false, ...this.opts() });
        try {
          const nav = await page.open(String(p.url), 'load', this.opts());
          const id = `zombie_${++this.zombieCount}`;
          this.zombies.set(id, page);
          return { data: { zombie_id: id, url: nav.url, title: nav.title, status: nav.status } };
        } catch (err) {
          await page.close().catch(() => {});
          throw err;
        }
      }
      case 'zombieKill': {
        const id = String(p.zombie_id);
        const page = this.pageFor(id);
        this.zombies.delete(id);
        await page.close();
        return { data: { zombie_id: id, killed: true } };
      }
    }
  }

  private async storage(
    action: 'storageSet' | 'storageGet',
    p: Record<string, unknown>,
  ): Promise<ActionResult> {
    const page = this.pageFor(p.zombie_id as string | undefined);
    const area = (p.area as 'local' | 'session' | undefined) ?? 'local';
    const key = String(p.key);
    if (action === 'storageSet') {
      await page.storageSet(area, key, String(p.value), this.opts());
      return { data: { key, area, stored: true } };
    }
    const value = await page.storageGet(area, key, this.opts());
    return { data: { key, area, value: typeof value === 'string' ? value : null } };
  }

  /** The ids of the live zombie pages. */
  zombieIds(): string[] {
    return [...this.zombies.keys()];
  }

  /** Closes the zombie pages (the session closes the rest). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.zombies.values()].map((z) => z.close()));
    this.zombies.clear();
  }
}

function target(p: Record<string, unknown>): Target {
  if (typeof p.ref === 'string') return { element_ref: p.ref };
  return { selector: String(p.selector) };
}

function fit(s: string): { text: string; truncated: boolean } {
  if (s.length * 3 <= MAX_CONTENT_BYTES || Buffer.byteLength(s, 'utf8') <= MAX_CONTENT_BYTES)
    return { text: s, truncated: false };
  let cut = Buffer.from(s, 'utf8').subarray(0, MAX_CONTENT_BYTES).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return { text: cut, truncated: true };
}

const SKIP_ROLES = new Set(['text', 'generic', 'none', 'presentation', 'StaticText']);

/** Flattens the snapshot model: nodes with a ref, or (not interactive_only) a meaningful role and a name. */
export function aomNodes(root: SnapshotNode, interactiveOnly: boolean): AomNode[] {
  const out: AomNode[] = [];
  const visit = (n: SnapshotNode) => {
    const keep = interactiveOnly
      ? n.interactive && !!n.element_ref
      : !!n.element_ref || (!SKIP_ROLES.has(n.role) && (n.name !== '' || n.role === 'heading'));
    if (keep && n !== root) {
      const node: AomNode = { ref: n.element_ref ?? null, role: n.role, name: n.name };
      if (n.value !== undefined) node.value = n.value;
      if (n.states && Object.keys(n.states).length) node.states = { ...n.states };
      out.push(node);
    }
    for (const c of n.children) visit(c);
  };
  visit(root);
  return out;
}
