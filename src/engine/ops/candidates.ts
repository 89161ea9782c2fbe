import { z } from 'zod';
import { actionCandidates } from '../semantics/candidates.js';
import { defineOp } from './define.js';

/** Page understanding for bounded decisions (src/engine/semantics/candidates.ts). */

export const candidates = defineOp({
  name: 'page.candidates',
  scope: 'page',
  effect: 'read',
  summary:
    'The elements an agent can act on now (main frame, enabled, not secret), with the actions each role allows, state and context.',
  input: z.object({ max: z.number().int().min(1).max(1_000).describe('At most this many.') }).strict(),
  run: (page, i, opts) => actionCandidates(page, i.max, opts),
});
