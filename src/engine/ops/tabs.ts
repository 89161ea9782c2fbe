import { z } from 'zod';
import { defineOp } from './define.js';

export const newTab = defineOp({
  name: 'tab.new',
  scope: 'session',
  effect: 'navigate',
  summary: 'Open a new tab (active unless activate is false), optionally at a URL.',
  input: z.object({ url: z.string().optional(), activate: z.boolean().optional() }).strict(),
  run: (session, i, opts) => session.newPage({ ...opts, url: i.url, activate: i.activate }),
});

export const listTabs = defineOp({
  name: 'tab.list',
  scope: 'session',
  effect: 'read',
  summary: "The session's open tabs with fresh titles (a busy tab answers with its last known title).",
  input: z.object({}).strict(),
  run: (session) => session.describePages(),
});

export const activateTab = defineOp({
  name: 'tab.activate',
  scope: 'session',
  effect: 'session',
  summary: 'Make a tab the active one and bring it to the front.',
  input: z.object({ page_id: z.string().min(1) }).strict(),
  run: (session, i, opts) => session.activate(i.page_id, opts),
});

export const closeTab = defineOp({
  name: 'tab.close',
  scope: 'session',
  effect: 'session',
  summary:
    "Close one of the session's open tabs (a crashed tab, which the session no longer lists, closes with page.close).",
  input: z.object({ page_id: z.string().min(1) }).strict(),
  run: (session, i) => session.closePage(i.page_id),
});

export const closePage = defineOp({
  name: 'page.close',
  scope: 'page',
  effect: 'session',
  summary: 'Close this tab, a crashed one too (the session no longer lists it, but it stays until closed).',
  input: z.object({}).strict(),
  run: (page) => page.close(),
});

export const bringToFront = defineOp({
  name: 'tab.front',
  scope: 'page',
  effect: 'session',
  summary: "Raise the tab's window for a person to look at; the session's active tab does not change.",
  input: z.object({}).strict(),
  run: (page, _i, opts) => page.bringToFront(opts),
});
