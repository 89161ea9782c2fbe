import type { PlacementStatus } from '../backend.js';
import { type GridEndpoint, GridUnreachable, WebDriverError, webdriver, within } from './webdriver.js';

interface StatusSlot {
  session: unknown;
  stereotype?: { browserName?: string };
}
interface StatusNode {
  uri?: string;
  availability?: string;
  slots?: StatusSlot[];
}

/**
 * The Grid's state from its own /status (nodes, slots, sessions) and the new-session queue
 * (`/se/grid/newsessionqueue/queue`, the same list the Grid UI shows): what `provider.status` and
 * `tabwright doctor` report, and how a deadline that passes while a session waits is explained.
 */
export async function gridStatus(grid: GridEndpoint, timeoutMs: number): Promise<PlacementStatus> {
  const base = { kind: 'grid' as const, url: grid.base };
  try {
    const value = (await webdriver(grid, 'GET', '/status', { signal: within(timeoutMs) })) as {
      ready?: boolean;
      message?: string;
      nodes?: StatusNode[];
    };
    const nodes = value.nodes ?? [];
    const up = nodes.filter((n) => n.availability === 'UP');
    const slots = up.flatMap((n) => n.slots ?? []);
    const busy = slots.filter((s) => s.session).length;
    const queue = await webdriver(grid, 'GET', '/se/grid/newsessionqueue/queue', {
      signal: within(timeoutMs),
    }).then(
      (q) => (Array.isArray(q) ? q.length : null),
      () => null,
    );
    return {
      ...base,
      reachable: true,
      ready: value.ready === true,
      message: value.message ?? '',
      nodes: nodes.length,
      nodes_up: up.length,
      slots: slots.length,
      free_slots: slots.length - busy,
      sessions: busy,
      queue,
      browsers: [...new Set(slots.map((s) => s.stereotype?.browserName).filter((b): b is string => !!b))],
    };
  } catch (err) {
    const why =
      err instanceof GridUnreachable
        ? `cannot connect (${err.message})`
        : err instanceof WebDriverError
          ? `answered HTTP ${err.status} (${err.error})`
          : 'did not answer in time';
    return {
      ...base,
      reachable: false,
      ready: false,
      message: `The Grid at ${grid.base} ${why}.`,
      nodes: 0,
      nodes_up: 0,
      slots: 0,
      free_slots: 0,
      sessions: 0,
      queue: null,
      browsers: [],
    };
  }
}
