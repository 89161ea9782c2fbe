import type { z } from 'zod';
import type { ActionOptions } from '../actions/types.js';
import type { OperationOptions } from '../deadline.js';
import type { ActOptions } from '../schemas.js';

/**
 * The action options every acting operation takes (ActOptions: observation, diff, verify, refusals)
 * turned into the pipeline's ActionOptions. Not an operation itself, so it lives outside ./all.ts.
 */

export type ActOptionFields = { [K in keyof typeof ActOptions]?: z.output<(typeof ActOptions)[K]> };

export function actionOptions(i: ActOptionFields, opts: OperationOptions): ActionOptions {
  const o: ActionOptions = { ...opts };
  if (i.observe_ms !== undefined) o.observe_ms = i.observe_ms;
  if (i.observe_min_ms !== undefined) o.observe_min_ms = i.observe_min_ms;
  if (i.snapshot_diff !== undefined) o.snapshot_diff = i.snapshot_diff;
  if (i.verify !== undefined) o.verify = i.verify;
  if (i.verify_mode !== undefined) o.verify_mode = i.verify_mode;
  if (i.refuse !== undefined) o.refuse = i.refuse;
  return o;
}
