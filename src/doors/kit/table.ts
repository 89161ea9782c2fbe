import type { Method } from './method.js';

/** A door's methods by wire name: the single place a door looks a method up and lists them. */
export class MethodTable<Ctx, Meta, Reply = unknown> {
  private readonly byName = new Map<string, Method<Ctx, Meta, Reply>>();

  constructor(methods: Iterable<Method<Ctx, Meta, Reply>>) {
    for (const m of methods) {
      if (this.byName.has(m.name)) throw new Error(`two methods are named ${m.name}`);
      this.byName.set(m.name, m);
    }
  }

  get(name: string): Method<Ctx, Meta, Reply> | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  list(): Method<Ctx, Meta, Reply>[] {
    return [...this.byName.values()];
  }

  /** A table of the methods that pass `keep` (e.g. what this process can serve). */
  filter(keep: (m: Method<Ctx, Meta, Reply>) => boolean): MethodTable<Ctx, Meta, Reply> {
    return new MethodTable(this.list().filter(keep));
  }
}

/** How a door answers what the kit cannot decide for it, in its own vocabulary and language. */
export interface DispatchHooks<Ctx, Meta, Reply = unknown> {
  /** No method of that name (suggestions are the door's business). */
  unknownMethod(name: string): Error;
  /** Anything the handler threw (a TabwrightError, an InvalidParams, or a bug): the door's error. */
  failure(err: unknown, method: Method<Ctx, Meta, Reply>): Error;
}

/** The one dispatch path: look up, validate, run; every failure goes through the door's hooks. */
export async function dispatch<Ctx, Meta, Reply>(
  table: MethodTable<Ctx, Meta, Reply>,
  name: string,
  ctx: Ctx,
  raw: unknown,
  hooks: DispatchHooks<Ctx, Meta, Reply>,
): Promise<{ method: Method<Ctx, Meta, Reply>; result: Reply }> {
  const method = table.get(name);
  if (!method) throw hooks.unknownMethod(name);
  try {
    return { method, result: await method.invoke(ctx, raw) };
  } catch (err) {
    throw hooks.failure(err, method);
  }
}
