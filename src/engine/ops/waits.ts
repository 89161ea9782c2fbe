import { z } from 'zod';
import { WaitConditions } from '../schemas.js';
import { defineOp } from './define.js';

export const wait = defineOp({
  name: 'page.wait',
  scope: 'page',
  effect: 'wait',
  summary:
    'Wait until the conditions hold (all, or the first with mode any); not_ready with details at the deadline.',
  input: z
    .object({
      conditions: WaitConditions,
      mode: z.enum(['all', 'any']).optional(),
      poll_ms: z.number().int().min(10).max(5000).optional(),
      frame: z.string().min(1).optional().describe('Observe the DOM conditions in this frame.'),
    })
    .strict(),
  run: (page, i, opts) => page.wait(i.conditions, { mode: i.mode, poll_ms: i.poll_ms, frame: i.frame }, opts),
});
