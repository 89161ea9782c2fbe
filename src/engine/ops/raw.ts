import { z } from 'zod';
import {
  PageRawChannel,
  pageCdpSession,
  pageTargetId,
  sessionCdpSession,
  startTracing,
  stopTracing,
} from '../raw.js';
import { defineOp } from './define.js';

/** The backend's raw escape hatches: they bypass the engine's guards (the network policy still applies). */

export const targetId = defineOp({
  name: 'page.target_id',
  scope: 'page',
  effect: 'read',
  summary: "The browser's own id of the tab (CDP targetId on Chromium).",
  input: z.object({}).strict(),
  run: (page) => pageTargetId(page),
});

export const pageProtocolSession = defineOp({
  name: 'page.raw_session',
  scope: 'page',
  effect: 'raw',
  summary: 'A raw protocol session attached to the tab (CDP on Chromium).',
  input: z.object({}).strict(),
  run: (page) => pageCdpSession(page),
});

export const pageProtocolChannel = defineOp({
  name: 'page.raw_channel',
  scope: 'page',
  effect: 'raw',
  summary:
    "A raw protocol channel to the tab (CDP on Chromium) whose calls run in the page's queue under a deadline.",
  input: z.object({}).strict(),
  run: (page) => new PageRawChannel(page),
});

export const browserProtocolSession = defineOp({
  name: 'session.raw_session',
  scope: 'session',
  effect: 'raw',
  summary: "A raw browser-level protocol session, or one attached to a tab of the session's browser.",
  input: z.object({ target_id: z.string().min(1).optional() }).strict(),
  run: (session, i) => sessionCdpSession(session, i.target_id),
});

export const traceStart = defineOp({
  name: 'session.trace_start',
  scope: 'session',
  effect: 'configure',
  summary: "Start recording a trace of the session's context (screenshots, DOM snapshots).",
  input: z
    .object({
      title: z.string().optional(),
      screenshots: z.boolean().optional(),
      snapshots: z.boolean().optional(),
    })
    .strict(),
  run: (session, i) => startTracing(session, i),
});

export const traceStop = defineOp({
  name: 'session.trace_stop',
  scope: 'session',
  effect: 'configure',
  summary: 'Stop the trace and write it to a file.',
  input: z.object({ path: z.string().min(1) }).strict(),
  run: (session, i) => stopTracing(session, i.path),
});

export const protocolSend = defineOp({
  name: 'page.raw_send',
  scope: 'page',
  effect: 'raw',
  summary:
    "Send one raw protocol command to the tab (CDP on Chromium) in the page's queue, and return its result.",
  input: z
    .object({ method: z.string().min(1), params: z.record(z.string(), z.unknown()).optional() })
    .strict(),
  run: (page, i, opts) =>
    page.run('page.raw_send', 'action', opts, async () => {
      const raw = await pageCdpSession(page);
      try {
        return await raw.send(i.method, i.params ?? {});
      } finally {
        void raw.detach();
      }
    }),
});
