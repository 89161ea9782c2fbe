import type { z } from 'zod';
import type { OperationOptions } from '../deadline.js';
import type { Engine } from '../engine.js';
import type { Page } from '../page.js';
import { parseInput } from '../schemas.js';
import type { SecretRegistry } from '../semantics/secret-registry.js';
import type { Session } from '../session.js';

/**
 * An engine operation: one capability, declared once. Its name, effect and summary feed every
 * door's listings (HTTP list_methods, MCP tools/list with annotations, provider.describe); its
 * zod input validates calls and gives the TypeScript type by inference. Doors map their wire
 * names onto operations (src/doors/kit) and never reach past this surface.
 */

/** What an operation does to the world: doors derive approval hints (MCP annotations) from it. */
export type Effect =
  /** Reads the page or the session; changes nothing. */
  | 'read'
  /** Waits for the page to reach a state; changes nothing. */
  | 'wait'
  /** Loads another document (the page's state is left behind). */
  | 'navigate'
  /** Sends input or changes the page as a user would (clicks, typing, files, dialogs). */
  | 'act'
  /** Starts, closes or switches sessions and tabs. */
  | 'session'
  /** Changes how the session or page behaves (cookies, policies, emulation, routes). */
  | 'configure'
  /** Runs caller code or raw protocol commands in the page: anything can happen. */
  | 'raw';

export interface EffectFacts {
  /** Changes nothing in the page, the session or the world. */
  readOnly: boolean;
  /** May do something that cannot be undone (submit a form, delete an item, run code). */
  destructive: boolean;
  /** Repeating it with the same input has no further effect. */
  idempotent: boolean;
  /** May reach sites and services beyond the current page. */
  openWorld: boolean;
}

export const EFFECTS: Readonly<Record<Effect, EffectFacts>> = {
  read: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  wait: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  navigate: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  act: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  session: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  configure: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  raw: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
};

/** What an operation runs on. */
export interface Subjects {
  engine: Engine;
  session: Session;
  page: Page;
}
export type Scope = keyof Subjects;

/** What listings and generated docs need of an operation (no call signature: any operation fits). */
export interface OperationInfo {
  readonly name: string;
  readonly scope: Scope;
  readonly effect: Effect;
  /** One line, imperative, for listings and generated references. */
  readonly summary: string;
  readonly input: z.ZodType;
}

export interface Operation<S extends Scope, In, Out> extends OperationInfo {
  readonly scope: S;
  /** Validates `input` against the schema (invalid_request naming the field) and runs the operation. */
  call(subject: Subjects[S], input: In, opts?: OperationOptions): Promise<Out>;
}

export interface OperationSpec<S extends Scope, Z extends z.ZodType, Out> {
  name: string;
  scope: S;
  effect: Effect;
  summary: string;
  input: Z;
  run(subject: Subjects[S], input: z.output<Z>, opts: OperationOptions): Promise<Out> | Out;
}

export function defineOp<S extends Scope, Z extends z.ZodType, Out>(
  spec: OperationSpec<S, Z, Out>,
): Operation<S, z.input<Z>, Out> {
  const { name, scope, effect, summary, input, run } = spec;
  return Object.freeze({
    name,
    scope,
    effect,
    summary,
    input,
    async call(subject: Subjects[S], raw: z.input<Z>, opts: OperationOptions = {}): Promise<Out> {
      const out = await run(subject, parseInput(input, raw, name), opts);
      // The one secret rule, on every operation's output: values the session knows are secret never leave.
      return secretsOf(subject)?.scrub(out) ?? out;
    },
  });
}

/** The secret registry of an operation's subject (a page's or a session's; none for the engine). */
function secretsOf(subject: Subjects[Scope]): SecretRegistry | undefined {
  const owner = 'secrets' in subject ? subject : (subject as { session?: unknown }).session;
  return owner && typeof owner === 'object' && 'secrets' in owner ? (owner as Session).secrets : undefined;
}

/** The input type of an operation (what a door passes to `call`). */
export type InputOf<O> = O extends Operation<Scope, infer In, unknown> ? In : never;
/** The result type of an operation. */
export type OutputOf<O> = O extends Operation<Scope, never, infer Out> ? Out : never;
