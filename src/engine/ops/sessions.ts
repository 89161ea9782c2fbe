import { z } from 'zod';
import type { SessionRequest } from '../engine.js';
import { TabwrightError } from '../errors.js';
import { SessionStart } from '../schemas.js';
import { defineOp } from './define.js';

export const startSession = defineOp({
  name: 'session.start',
  scope: 'engine',
  effect: 'session',
  summary:
    'Start a session: ephemeral (an isolated context, default), persistent (a named profile), attach (a running browser) or remote.',
  input: SessionStart,
  run: (engine, i, opts) => {
    const common = {
      browser: i.browser,
      product: i.product,
      policy: i.policy,
      network_recording: i.network_recording,
      dialogs: i.dialogs,
    };
    const kind = i.kind ?? 'ephemeral';
    const need = (field: 'profile' | 'endpoint'): string => {
      const v = i[field];
      if (v === undefined)
        throw new TabwrightError('invalid_request', `A ${kind} session needs ${field}.`, {
          details: { field },
        });
      return v;
    };
    const req: SessionRequest =
      kind === 'persistent'
        ? { kind, profile: need('profile'), ...common }
        : kind === 'attach' || kind === 'remote'
          ? { kind, endpoint: need('endpoint'), ...common }
          : { kind, ...common };
    return engine.startSession(req, opts);
  },
});

export const closeSession = defineOp({
  name: 'session.close',
  scope: 'engine',
  effect: 'session',
  summary:
    'Close a session: ephemeral closes its context, persistent its browser (the profile stays), attach only disconnects.',
  input: z.object({ session_id: z.string().min(1) }).strict(),
  run: (engine, i, opts) => engine.closeSession(i.session_id, opts),
});

export const listSessions = defineOp({
  name: 'session.list',
  scope: 'engine',
  effect: 'read',
  summary: "The engine's sessions: kind, browser, profile or endpoint, pages, alive.",
  input: z.object({}).strict(),
  run: (engine) => engine.sessions().map((s) => s.info()),
});

export const sessionInfo = defineOp({
  name: 'session.info',
  scope: 'session',
  effect: 'read',
  summary: 'The session: kind, browser, profile or endpoint, default page, page count, alive.',
  input: z.object({}).strict(),
  run: (session) => session.info(),
});

export const diagnostics = defineOp({
  name: 'engine.diagnostics',
  scope: 'engine',
  effect: 'read',
  summary: 'Browsers found and their versions, the profile root, writable directories, and what to fix.',
  input: z
    .object({
      refresh: z.boolean().optional().describe('Look again now (the answer is otherwise kept 5 minutes).'),
    })
    .strict(),
  run: (engine, i) => engine.diagnostics({ refresh: i.refresh }),
});

export const placement = defineOp({
  name: 'engine.placement',
  scope: 'engine',
  effect: 'read',
  summary:
    'Where ephemeral sessions run: null for this machine, or the Selenium Grid (reachable, nodes, free slots, queue).',
  input: z
    .object({
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(10_000)
        .optional()
        .describe('How long to wait for the Grid (default 3000).'),
    })
    .strict(),
  run: (engine, i) => engine.placementStatus(i.timeout_ms),
});

export const sharedBrowser = defineOp({
  name: 'engine.shared_browser',
  scope: 'engine',
  effect: 'read',
  summary:
    'Whether a shared browser (the ones ephemeral sessions use, per family and product) is running: each with its pid; pid is the default family’s.',
  input: z.object({}).strict(),
  run: async (engine) => {
    const browsers = await engine.sharedBrowsers();
    const pid = await engine.sharedBrowserPid();
    return { running: browsers.length > 0, pid: pid ?? null, browsers };
  },
});
