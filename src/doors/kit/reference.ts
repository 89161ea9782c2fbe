import { type OperationInfo, toJsonSchema } from '../../engine/api.js';
import type { Method } from './method.js';

/**
 * The method reference of a door's docs, generated from its table (scripts/gen-reference.ts writes
 * it between markers; test/generated-docs.test.ts fails when it is stale). One row per wire method:
 * its effect, the engine operations it runs (src/engine/ops, by name) and its parameters.
 */

export interface ReferenceOptions<Ctx, Meta, Reply> {
  /** Column heading of the wire name ("method", "tool", "action"). */
  noun: string;
  methods: readonly Method<Ctx, Meta, Reply>[];
  /** Extra columns a door adds (e.g. MCP's title), in order. */
  extra?: { heading: string; cell: (m: Method<Ctx, Meta, Reply>) => string }[];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Top-level parameter names of a wire schema, required ones first and marked. */
export function parameterNames(schema: Method<unknown, unknown, unknown>['params']): string[] {
  const js = toJsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  const props = Object.keys(js.properties ?? {});
  const required = new Set(js.required ?? []);
  return [
    ...props.filter((p) => required.has(p)).map((p) => `**${p}**`),
    ...props.filter((p) => !required.has(p)),
  ];
}

function operations(ops: readonly OperationInfo[]): string {
  return ops.length ? ops.map((o) => `\`${o.name}\``).join(', ') : '(protocol)';
}

export function referenceTable<Ctx, Meta, Reply>(o: ReferenceOptions<Ctx, Meta, Reply>): string {
  const extra = o.extra ?? [];
  const head = [
    o.noun,
    ...extra.map((e) => e.heading),
    'effect',
    'engine operations',
    'parameters',
    'summary',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const m of o.methods) {
    const row = [
      `\`${m.name}\``,
      ...extra.map((e) => cell(e.cell(m))),
      m.effect,
      operations(m.ops),
      parameterNames(m.params).join(', ') || '—',
      cell(m.summary),
    ];
    lines.push(`| ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

const START = (id: string) => `<!-- generated:${id} (scripts/gen-reference.ts; do not edit) -->`;
const END = (id: string) => `<!-- /generated:${id} -->`;

/** Replaces the text between the markers of `id` in `doc`; throws when the markers are missing. */
export function spliceGenerated(doc: string, id: string, body: string): string {
  const start = doc.indexOf(START(id));
  const end = doc.indexOf(END(id));
  if (start < 0 || end < start)
    throw new Error(`markers of "${id}" are missing: add ${START(id)} … ${END(id)}`);
  return `${doc.slice(0, start + START(id).length)}\n${body}\n${doc.slice(end)}`;
}

export const markers = (id: string) => ({ start: START(id), end: END(id) });
