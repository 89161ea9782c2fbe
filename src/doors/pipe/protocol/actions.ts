import { z } from 'zod';
import type { PipeAction } from './constants.js';
import { PipeError } from './errors.js';

/**
 * Parameters of the 14 actions (normative for tabwright). Every action may
 * carry `zombie_id` to act on that background page instead of the main one.
 * Unknown fields are refused (invalid_params), so typos never pass silently.
 */

const Ref = z
  .string()
  .regex(/^e[1-9][0-9]*$/, 'a ref from getAomSnapshot, e.g. "e12"')
  .describe('An element ref from getAomSnapshot.');
const Selector = z.string().min(1).max(10_000).describe('CSS selector; must match exactly one element.');
const ZombieId = z.string().min(1).max(100);
const HttpUrl = z
  .string()
  .min(1)
  .max(8_192)
  .refine((u) => {
    try {
      const p = new URL(u).protocol;
      return p === 'http:' || p === 'https:';
    } catch {
      return false;
    }
  }, 'an absolute http(s) URL');
const Area = z.enum(['local', 'session']);

const base = { zombie_id: ZombieId.optional() };
const target = { selector: Selector.optional(), ref: Ref.optional() };

function exactlyOne(keys: string[]) {
  return (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const given = keys.filter((k) => v[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [keys[0]!],
        message:
          given.length === 0
            ? `one of ${keys.join(', ')} is required`
            : `give only one of ${given.join(', ')}`,
      });
    }
  };
}

export const ACTION_PARAMS = {
  click: z
    .object({ ...base, ...target })
    .strict()
    .superRefine(exactlyOne(['selector', 'ref'])),
  type: z
    .object({
      ...base,
      ...target,
      text: z.string().max(100_000),
      clear: z.boolean().optional(),
      submit: z.boolean().optional(),
    })
    .strict()
    .superRefine(exactlyOne(['selector', 'ref'])),
  navigate: z.object({ ...base, url: HttpUrl }).strict(),
  getText: z.object({ ...base, selector: Selector.optional() }).strict(),
  getHtml: z.object({ ...base, selector: Selector.optional() }).strict(),
  waitForSelector: z
    .object({
      ...base,
      selector: Selector,
      state: z.enum(['attached', 'visible', 'hidden']).optional(),
      timeout_ms: z.number().int().min(0).max(25_000).optional(),
    })
    .strict(),
  pageScreenshot: z
    .object({ ...base, full_page: z.boolean().optional(), format: z.enum(['png', 'jpeg']).optional() })
    .strict(),
  select: z
    .object({
      ...base,
      ...target,
      value: z.string().optional(),
      label: z.string().optional(),
      index: z.number().int().min(0).optional(),
    })
    .strict()
    .superRefine(exactlyOne(['selector', 'ref']))
    .superRefine(exactlyOne(['value', 'label', 'index'])),
  scrollTo: z
    .object({ ...base, ...target, x: z.number().min(0).optional(), y: z.number().min(0).optional() })
    .strict()
    .superRefine((v, ctx) => {
      const point = v.x !== undefined || v.y !== undefined;
      const n = [v.selector !== undefined, v.ref !== undefined, point].filter(Boolean).length;
      if (n !== 1)
        ctx.addIssue({
          code: 'custom',
          path: ['selector'],
          message: 'give exactly one of selector, ref, or x and y',
        });
      else if (point && (v.x === undefined || v.y === undefined))
        ctx.addIssue({
          code: 'custom',
          path: [v.x === undefined ? 'x' : 'y'],
          message: 'x and y go together',
        });
    }),
  getAomSnapshot: z.object({ ...base, interactive_only: z.boolean().optional() }).strict(),
  storageSet: z
    .object({ ...base, key: z.string().min(1).max(1_000), value: z.string(), area: Area.optional() })
    .strict(),
  storageGet: z.object({ ...base, key: z.string().min(1).max(1_000), area: Area.optional() }).strict(),
  zombieSpawn: z.object({ url: HttpUrl }).strict(),
  zombieKill: z.object({ zombie_id: ZombieId }).strict(),
} as const satisfies Record<PipeAction, z.ZodType>;

export type ActionParams = { [A in PipeAction]: z.infer<(typeof ACTION_PARAMS)[A]> };

/** Validates an action's params; invalid_params names the field and the problem. */
export function parseActionParams<A extends PipeAction>(action: A, params: unknown): ActionParams[A] {
  const res = ACTION_PARAMS[action].safeParse(params ?? {});
  if (res.success) return res.data as ActionParams[A];
  const i = res.error.issues[0]!;
  const field = i.path.map(String).join('.') || '(params)';
  const keys = i.code === 'unrecognized_keys' ? (i as { keys?: string[] }).keys : undefined;
  throw invalidParams(action, field, keys ? `unknown field(s) ${keys.join(', ')}` : i.message);
}

/** The invalid_params error both sides give for params that fail an action's schema. */
export function invalidParams(action: string, field: string, problem: string): PipeError {
  return new PipeError(
    'invalid_params',
    `${action}: invalid ${field}: ${problem}. See docs/pipe-protocol.md for the parameters.`,
    { field },
  );
}

/** Host of an absolute URL, lower case, without port ('' when there is none). */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}
