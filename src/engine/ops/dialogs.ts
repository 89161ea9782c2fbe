import { z } from 'zod';
import { DialogPolicyInput } from '../schemas.js';
import { defineOp } from './define.js';

export const pendingDialog = defineOp({
  name: 'page.dialog',
  scope: 'page',
  effect: 'read',
  summary: 'The JavaScript dialog held for the caller (dialog policy "hold"), or null.',
  input: z.object({}).strict(),
  run: (page) => page.pendingDialog(),
});

export const dialogs = defineOp({
  name: 'page.dialogs',
  scope: 'page',
  effect: 'read',
  summary: "The page's dialogs and how each was answered (what the page got), after a seq.",
  input: z.object({ since_seq: z.number().int().min(0).optional() }).strict(),
  run: (page, i) => page.dialogs.list(i.since_seq),
});

export const handleDialog = defineOp({
  name: 'page.handle_dialog',
  scope: 'page',
  effect: 'act',
  summary: 'Answer the held dialog: accept (with prompt text) or dismiss; reports what the page received.',
  input: z.object({ accept: z.boolean(), prompt_text: z.string().optional() }).strict(),
  run: (page, i) => page.handleDialog(i),
});

export const dialogPolicy = defineOp({
  name: 'session.dialog_policy',
  scope: 'session',
  effect: 'configure',
  summary: 'How JavaScript dialogs are answered: accept, dismiss or hold, for all types or per type.',
  input: z.object({ policy: DialogPolicyInput }).strict(),
  run: (session, i) => session.setDialogPolicy(i.policy),
});
