import type { z } from 'zod';
import { type Effect, type OperationInfo, TabwrightError } from '../../engine/api.js';

/**
 * One wire method of a door: its wire name and schema, the engine operations it maps onto, and a
 * handler that renames parameters into operation input and shapes the reply. Listings and
 * generated references read `summary`, `effect` and `ops`; `meta` carries what only one door
 * needs (the HTTP door's task mode, the provider's group and stability, MCP's core set).
 */
export interface MethodSpec<Ctx, P extends z.ZodType, Meta, Reply = unknown> {
  name: string;
  params: P;
  /** The engine operations behind the method, the primary one first; none for a protocol's own meta methods. */
  ops?: readonly OperationInfo[];
  /** One line for listings; the primary operation's summary when absent. */
  summary?: string;
  /** The method's effect; the strongest of its operations' effects when absent ("read" without any). */
  effect?: Effect;
  meta: Meta;
  run(ctx: Ctx, params: z.output<P>): Reply | Promise<Reply>;
}

export interface Method<Ctx, Meta, Reply = unknown> {
  readonly name: string;
  readonly params: z.ZodType;
  readonly ops: readonly OperationInfo[];
  readonly summary: string;
  readonly effect: Effect;
  readonly meta: Meta;
  /** Validates `raw` with the wire schema (InvalidParams on failure, nothing runs) and runs the handler. */
  invoke(ctx: Ctx, raw: unknown): Promise<Reply>;
}

/** Wire parameters that failed the method's schema; each door renders it in its own words. */
export class InvalidParams extends Error {
  constructor(
    readonly method: string,
    readonly issues: readonly z.core.$ZodIssue[],
    readonly raw: unknown,
  ) {
    super(`${method}: invalid params: ${issues[0]?.message ?? 'invalid'}`);
  }

  /** The first offending field's name (top level), or "" for the params object itself. */
  get field(): string {
    return String(this.issues[0]?.path[0] ?? '');
  }

  /** The first issue as a full path ("verify.text_present", "(params)") and what is wrong with it. */
  describe(): { path: string; problem: string } {
    const issue = this.issues[0];
    const path = issue?.path.map(String).join('.') || '(params)';
    const keys = issue?.code === 'unrecognized_keys' ? (issue as { keys?: string[] }).keys : undefined;
    return { path, problem: keys ? `unknown field(s) ${keys.join(', ')}` : (issue?.message ?? 'invalid') };
  }
}

/**
 * The English doors' rendering of bad parameters (provider protocol, MCP): invalid_request naming
 * the field, the problem and where to look.
 */
export function invalidRequest(e: InvalidParams): TabwrightError {
  const { path, problem } = e.describe();
  return new TabwrightError(
    'invalid_request',
    `${e.method}: invalid ${path}: ${problem}. Check the method's input_schema.`,
    {
      details: {
        field: path,
        issues: e.issues.slice(0, 5).map((i) => ({ path: i.path.map(String), message: i.message })),
      },
    },
  );
}

/** From least to most consequential: a method made of several operations has the strongest effect. */
const EFFECT_ORDER: readonly Effect[] = ['read', 'wait', 'configure', 'session', 'navigate', 'act', 'raw'];

function strongest(ops: readonly OperationInfo[]): Effect {
  let best: Effect = 'read';
  for (const op of ops) if (EFFECT_ORDER.indexOf(op.effect) > EFFECT_ORDER.indexOf(best)) best = op.effect;
  return best;
}

/**
 * `const method = methodKit<MyContext, MyMeta, MyReply>()`, then one `method({...})` per wire
 * method: each handler is typed by its own schema, and the table holds them without casts.
 */
export function methodKit<Ctx, Meta, Reply = unknown>() {
  return <P extends z.ZodType>(spec: MethodSpec<Ctx, P, Meta, Reply>): Method<Ctx, Meta, Reply> => {
    const ops = spec.ops ?? [];
    const summary = spec.summary ?? ops[0]?.summary;
    if (!summary) throw new Error(`method ${spec.name} needs a summary (it maps onto no operation)`);
    return Object.freeze({
      name: spec.name,
      params: spec.params,
      ops,
      summary,
      effect: spec.effect ?? strongest(ops),
      meta: spec.meta,
      async invoke(ctx: Ctx, raw: unknown): Promise<Reply> {
        const parsed = spec.params.safeParse(raw);
        if (!parsed.success) throw new InvalidParams(spec.name, parsed.error.issues, raw);
        return spec.run(ctx, parsed.data);
      },
    });
  };
}
