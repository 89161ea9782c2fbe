import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type Factory = (...args: unknown[]) => unknown;

/** Resolves packages as fastify itself does (they are its dependencies, not ours). */
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

/** The factory that `pkg`'s export makes, made on the first call (once, as fastify would). */
function onFirstUse(pkg: string): Factory {
  let factory: Factory | undefined;
  return (...args) => {
    factory ??= (fromFastify(pkg) as () => Factory)();
    return factory(...args);
  };
}

/**
 * Fastify's default validator and serializer compilers (ajv with its formats, fast-json-stringify),
 * required the first time a route with a JSON schema is compiled instead of when the server is
 * created. No route of ours declares one (the dispatcher checks bodies against the door table's
 * zod schemas), so `tabwright serve` never loads them: ≈ 1.7 MB of V8 heap
 * (docs/benchmarks.md, memory). A route that declares a schema gets the very same compilers.
 */
export const LAZY_SCHEMA_COMPILERS = {
  buildValidator: onFirstUse('@fastify/ajv-compiler'),
  buildSerializer: onFirstUse('@fastify/fast-json-stringify-compiler'),
} as CompilersFactory;
