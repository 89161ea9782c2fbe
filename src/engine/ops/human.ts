import { z } from 'zod';
import type { CreateHumanInput, SubmitHumanInput } from '../human-input.js';
import { defineOp } from './define.js';

/**
 * Requests for a person (human in the loop): the engine's store, shared by every door and the
 * dashboard. A door validates the request in its own vocabulary and hands the engine's shape here.
 */

export const requestHuman = defineOp({
  name: 'human.request',
  scope: 'engine',
  effect: 'act',
  summary:
    'Ask a person to act or answer (prompt, steps, questions, a deadline); returns the pending record.',
  input: z.custom<CreateHumanInput>((v) => typeof v === 'object' && v !== null, {
    error: 'A human input request is an object (kind, prompt or steps, deadline).',
  }),
  run: (engine, i) => engine.humanInput.create(i),
});

export const humanRecord = defineOp({
  name: 'human.get',
  scope: 'engine',
  effect: 'read',
  summary: 'A human input record by id (pending, partial, answered or expired).',
  input: z.object({ id: z.string().min(1) }).strict(),
  run: (engine, i) => engine.humanInput.get(i.id),
});

export const humanRecords = defineOp({
  name: 'human.list',
  scope: 'engine',
  effect: 'read',
  summary: 'Human input records, optionally only the open ones.',
  input: z.object({ open: z.boolean().optional() }).strict(),
  run: (engine, i) => engine.humanInput.list(i),
});

export const answerHuman = defineOp({
  name: 'human.submit',
  scope: 'engine',
  effect: 'act',
  summary: "A person's answer: one step, several at once, or done (they acted in the browser).",
  input: z
    .object({
      id: z.string().min(1),
      submission: z.custom<SubmitHumanInput>((v) => typeof v === 'object' && v !== null),
    })
    .strict(),
  run: (engine, i) => engine.humanInput.submit(i.id, i.submission),
});

export const waitForHuman = defineOp({
  name: 'human.wait',
  scope: 'engine',
  effect: 'wait',
  summary: 'Long-poll a record until it changes from a version (or is finished), within timeout_ms.',
  input: z
    .object({
      id: z.string().min(1),
      timeout_ms: z.number().int().min(0),
      version: z.number().int().optional(),
    })
    .strict(),
  run: (engine, i) => engine.humanInput.wait(i.id, i.timeout_ms, i.version),
});
