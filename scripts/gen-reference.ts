// Writes the generated method references of the door docs from the door tables.
// Usage: node --import tsx scripts/gen-reference.ts          (write)
//        node --import tsx scripts/gen-reference.ts --check  (exit 1 when a doc is stale)
// npm run gen:reference; test/generated-docs.test.ts runs the check.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_TABLE } from '../src/doors/http/methods.js';
import { parameterNames, referenceTable, spliceGenerated } from '../src/doors/kit/reference.js';
import { ALL_TOOLS } from '../src/doors/mcp/table.js';
import { ALL_METHODS } from '../src/doors/provider/registry.js';
import type { OperationInfo } from '../src/engine/api.js';
import { toJsonSchema } from '../src/engine/api.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Section {
  doc: string;
  id: string;
  body: () => string;
}

/** Every operation with the file that declares it (src/engine/ops/<family>.ts). */
async function operationsByFile(): Promise<{ file: string; op: OperationInfo }[]> {
  const dir = join(root, 'src/engine/ops');
  const out: { file: string; op: OperationInfo }[] = [];
  // The families are exactly what ops/all.ts re-exports (other files there are helpers).
  const all = readFileSync(join(dir, 'all.ts'), 'utf8');
  const families = [...all.matchAll(/^export \* from '\.\/([a-z-]+)\.js';$/gm)].map((m) => `${m[1]}.ts`);
  for (const f of families.sort()) {
    // An ops family file exports operations only (shared schemas live in src/engine/schemas.ts).
    const mod = (await import(join(dir, f))) as Record<string, OperationInfo>;
    for (const op of Object.values(mod)) out.push({ file: `src/engine/ops/${f}`, op });
  }
  return out;
}

function operationsTable(list: { file: string; op: OperationInfo }[]): string {
  const lines = [
    '| operation | scope | effect | input | declared in | summary |',
    '|---|---|---|---|---|---|',
  ];
  for (const { file, op } of list) {
    const input =
      parameterNames(op.input).join(', ') || (toJsonSchema(op.input).type === 'object' ? '—' : '(any)');
    lines.push(
      `| \`${op.name}\` | ${op.scope} | ${op.effect} | ${input} | \`${file}\` | ${op.summary.replace(/\|/g, '\\|')} |`,
    );
  }
  return lines.join('\n');
}

const OPS_TABLE = operationsTable(await operationsByFile());

const HTTP_ID: Record<string, string> = {
  none: '–',
  new: 'optional',
  existing: 'yes',
  'existing-unlocked': 'yes (no lock)',
};

export const SECTIONS: Section[] = [
  {
    doc: 'docs/http-api.md',
    id: 'http-methods',
    body: () =>
      referenceTable({
        noun: 'method',
        methods: HTTP_TABLE.list().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
        extra: [
          { heading: 'id', cell: (m) => HTTP_ID[m.meta.task] ?? m.meta.task },
          { heading: 'capture', cell: (m) => (m.meta.evidence ? 'yes' : '') },
        ],
      }),
  },
  {
    doc: 'docs/provider-protocol.md',
    id: 'provider-methods',
    body: () =>
      referenceTable({
        noun: 'method',
        methods: ALL_METHODS,
        extra: [
          { heading: 'group', cell: (m) => m.meta.group },
          { heading: 'stability', cell: (m) => m.meta.stability },
        ],
      }),
  },
  {
    doc: 'docs/operations.md',
    id: 'operations',
    body: () => OPS_TABLE,
  },
  {
    doc: 'docs/mcp.md',
    id: 'mcp-tools',
    body: () =>
      referenceTable({
        noun: 'tool',
        methods: ALL_TOOLS,
        extra: [
          { heading: 'title', cell: (t) => t.meta.title },
          { heading: 'core', cell: (t) => (t.meta.core ? 'yes' : '') },
        ],
      }),
  },
];

/** The docs as they should be, by path. */
export function generated(): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of SECTIONS) {
    const current = out.get(s.doc) ?? readFileSync(join(root, s.doc), 'utf8');
    out.set(s.doc, spliceGenerated(current, s.id, s.body()));
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [doc, text] of generated()) {
    const path = join(root, doc);
    if (readFileSync(path, 'utf8') === text) continue;
    if (check) {
      stale++;
      process.stderr.write(`${doc} is stale: run npm run gen:reference\n`);
    } else writeFileSync(path, text);
  }
  process.exit(stale ? 1 : 0);
}
