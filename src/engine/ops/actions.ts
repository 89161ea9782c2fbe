import { z } from 'zod';
import { ActionFields, ActionSpec, Target } from '../actions/spec.js';
import type { Receipt } from '../actions/types.js';
import type { OperationOptions } from '../deadline.js';
import type { Page } from '../page.js';
import { ActOptions } from '../schemas.js';
import { type ActOptionFields, actionOptions } from './act-options.js';
import { defineOp } from './define.js';

/**
 * Guarded actions with receipts (src/engine/actions/): resolve exactly one target, refuse with a
 * reason or dispatch trusted input once, then report what the page actually got.
 */

/** The actions a door may name (files go through page.upload, ./files.ts). */
type ActionKind = ActionSpec['action'];

/** Splits an action op's input into target, the action's own fields and the options. */
function perform(page: Page, action: ActionKind, input: Record<string, unknown>, opts: OperationOptions) {
  const { target, ...rest } = input;
  const fields: Record<string, unknown> = { action };
  const options: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) (k in ActOptions ? options : fields)[k] = v;
  return page.act(
    target as Target | undefined,
    fields as ActionSpec,
    actionOptions(options as ActOptionFields, opts),
  );
}

const SUMMARIES: Record<ActionKind, string> = {
  click: 'Click one element (or a point) with trusted input after an actionability check.',
  hover: 'Move the pointer over one element.',
  focus: 'Focus one element.',
  type: 'Type text into a field: appended, or replacing the value; submit presses Enter after.',
  fill: "Replace a field's value and verify the final value.",
  press: 'Press a key or chord, on an element or on whatever has focus.',
  select: 'Choose options of a select by value, label or index, and verify the selection.',
  check: 'Check a checkbox or radio button and verify it.',
  uncheck: 'Uncheck a checkbox and verify it.',
  scroll: 'Scroll an element or the page by pages or pixels, or bring the target into view.',
  drag: 'Drag one element onto another element or a point.',
};

/** Actions that may go without a target (they act on the focused element or the page), as in page.act. */
const TARGETLESS = new Set<ActionKind>(['press', 'scroll', 'type']);

function actionOp<N extends ActionKind>(action: N) {
  const fields = ActionFields[action] as (typeof ActionFields)[N];
  const target = TARGETLESS.has(action) ? Target.optional() : Target;
  const input = z.object({ target, ...fields.shape, ...ActOptions }).strict();
  return defineOp({
    name: `page.${action}`,
    scope: 'page',
    effect: 'act',
    summary: SUMMARIES[action],
    input,
    run: (page, i, opts): Promise<Receipt> => perform(page, action, i as Record<string, unknown>, opts),
  });
}

export const click = actionOp('click');
export const hover = actionOp('hover');
export const focus = actionOp('focus');
export const type = actionOp('type');
export const fill = actionOp('fill');
export const press = actionOp('press');
export const select = actionOp('select');
export const check = actionOp('check');
export const uncheck = actionOp('uncheck');
export const scroll = actionOp('scroll');
export const drag = actionOp('drag');

/** Any action by its spec: for doors whose wire format names the action as data (observe/act). */
export const act = defineOp({
  name: 'page.act',
  scope: 'page',
  effect: 'act',
  summary: 'Perform one action given as data ({action, ...fields}) on a target, with a receipt.',
  input: z.object({ target: Target.optional(), spec: ActionSpec, ...ActOptions }).strict(),
  run: (page, i, opts) => {
    const { target, spec, ...options } = i;
    return page.act(target, spec, actionOptions(options, opts));
  },
});

export const locate = defineOp({
  name: 'page.locate',
  scope: 'page',
  effect: 'read',
  summary: 'The one element a target names, as a ref, by the same rules as an action (nothing is sent).',
  input: z.object({ target: Target }).strict(),
  run: (page, i, opts) => page.locate(i.target, opts),
});
