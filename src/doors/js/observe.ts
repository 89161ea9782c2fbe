import { createHash, randomUUID } from 'node:crypto';
import { ops } from '../../engine/api.js';
import type { Page as EnginePage } from '../../engine/page.js';
import type { ActionCandidate } from '../../engine/semantics/candidates.js';

/**
 * page.observe(): a bounded list of candidates with opaque one-time handles
 * (random UUIDs), the operations each allows, its context and a revision (a
 * hash of the observed state: stable while nothing changes). Handles are not
 * snapshot refs; one act() consumes the whole observation.
 */
export type Operation =
  | 'click'
  | 'type'
  | 'press'
  | 'select'
  | 'scroll_down'
  | 'scroll_up'
  | 'scroll_into_view';

/** One candidate: a one-time handle, the operations it offers, and the engine's facts about it. */
export type Candidate = { id: string; operations: Operation[] } & Omit<
  ActionCandidate,
  'element_ref' | 'actions'
>;

export interface Observation {
  observationId: string;
  revision: string;
  url: string;
  title: string;
  truncated: boolean;
  candidates: Candidate[];
}

export interface Projection {
  revision: string;
  url: string;
  title: string;
  truncated: boolean;
  items: { engineRef: string; candidate: Omit<Candidate, 'id'> }[];
}

export const OBSERVE_DEFAULT = 64;
export const OBSERVE_MAX = 128;

/** Reads the page's candidates once (the engine's page.candidates) and projects them; no handles yet. */
export async function project(
  page: EnginePage,
  generation: number,
  maxElements: number,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<Projection> {
  const found = await ops.candidates.call(page, { max: maxElements }, opts);
  const items = found.candidates.map(({ element_ref, actions, role, label, ...rest }) => ({
    engineRef: element_ref,
    // The engine's action names are this door's operation names ('type' fills the field).
    // Keys reach any focusable control with trusted input: clickable controls take press too.
    candidate: { role, label, operations: operationsOf(actions, rest.scroll), ...rest },
  }));
  const revision = createHash('sha256')
    .update(JSON.stringify([generation, found.url, items.map((k) => [k.engineRef, k.candidate])]))
    .digest('hex')
    .slice(0, 24);
  return { revision, url: found.url, title: found.title, truncated: found.truncated, items };
}

function operationsOf(actions: readonly string[], scroll: ActionCandidate['scroll']): Operation[] {
  const ops = actions.filter((a) => a !== 'scroll') as Operation[];
  if (ops.includes('click') && !ops.includes('press')) ops.push('press');
  // A scrollable container: the directions it can move in now.
  if (scroll?.down) ops.push('scroll_down');
  if (scroll?.up) ops.push('scroll_up');
  return ops;
}

export interface IssuedObservation {
  observationId: string;
  revision: string;
  handles: Map<string, { engineRef: string; candidate: Candidate }>;
  consumed: boolean;
}

/** Gives every candidate a fresh one-time handle. */
export function issue(p: Projection): { observation: Observation; issued: IssuedObservation } {
  const handles = new Map<string, { engineRef: string; candidate: Candidate }>();
  const candidates = p.items.map((it) => {
    const c: Candidate = { id: randomUUID(), ...it.candidate };
    handles.set(c.id, { engineRef: it.engineRef, candidate: c });
    return c;
  });
  const observationId = randomUUID();
  return {
    observation: {
      observationId,
      revision: p.revision,
      url: p.url,
      title: p.title,
      truncated: p.truncated,
      candidates,
    },
    issued: { observationId, revision: p.revision, handles, consumed: false },
  };
}
