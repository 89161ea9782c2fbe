import { z } from 'zod';
import { defineOp } from './define.js';

/**
 * Where a page's logs stand now, so a door reads only what comes after (each list op's since_seq):
 * an event digest that starts when the door starts watching, or a receipt of what one call caused.
 */
export const logCursors = defineOp({
  name: 'page.log_cursors',
  scope: 'page',
  effect: 'read',
  summary:
    "The last seq of the page's dialogs and file choosers and of the session's downloads and refused requests, and how many of its requests failed.",
  input: z.object({}).strict(),
  run: (page) => ({
    dialogs: page.dialogs.lastSeq,
    file_choosers: page.fileChoosers.lastSeq,
    downloads: page.session.downloads.lastSeq,
    blocked_requests: page.session.network.lastSeq,
    failed_requests: page.network.counters().failed,
  }),
});
