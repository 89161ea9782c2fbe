import type { PlacementStatus } from '../backends/backend.js';
import { type Diagnostics, placementProblems } from '../engine/diagnostics.js';
import { Engine } from '../engine/engine.js';
import { chooseBrowser, everyBackend, gridPlacement } from './compose.js';

export function formatDiagnostics(d: Diagnostics, grid: PlacementStatus | null = null): string {
  const lines: string[] = [];
  lines.push(`node       ${d.node} (${d.platform})${d.root ? ', running as root' : ''}`);
  if (d.browsers.length === 0) lines.push('browsers   none found');
  for (const b of d.browsers) {
    const mark = b.selected ? '*' : ' ';
    lines.push(
      `browser  ${mark} ${b.family.padEnd(8)} ${b.path}  ${b.version ?? (b.executable ? 'version unknown' : 'not executable')}  [${b.source}]`,
    );
  }
  // Vendor builds a session can ask for (session.start product, the HTTP door's browser:"chrome").
  const products = Object.entries(d.products).map(([name, path]) => `${name} ${path}`);
  lines.push(
    `products   ${products.join(', ') || 'no Chrome or Edge found (TABWRIGHT_CHROME / TABWRIGHT_EDGE point at one)'}`,
  );
  if (grid) lines.push(...formatGrid(grid));
  lines.push(`home       ${d.home}`);
  for (const dir of d.dirs) {
    lines.push(
      `  ${dir.role.padEnd(9)} ${dir.path}  ${dir.exists ? (dir.writable ? 'writable' : 'NOT writable') : 'will be created on first use'}`,
    );
  }
  const problems = doctorProblems(d, grid);
  if (problems.length === 0) lines.push('status     ok');
  for (const p of problems) {
    lines.push(`problem    ${p.code}: ${p.message}`);
    for (const step of p.manual_steps) lines.push(`           $ ${step}`);
  }
  return lines.join('\n');
}

function formatGrid(g: PlacementStatus): string[] {
  if (!g.reachable) return [`grid       ${g.url}  UNREACHABLE`];
  return [
    `grid       ${g.url}  ${g.ready ? 'ready' : 'not ready'}`,
    `  nodes    ${g.nodes_up} up of ${g.nodes}; browsers: ${g.browsers.join(', ') || 'none'}`,
    `  slots    ${g.free_slots} free of ${g.slots} (${g.sessions} sessions)`,
    `  queue    ${g.queue ?? 'unknown'}`,
  ];
}

/** With a Grid, its state decides (local browsers are not used for sessions); without one, the machine's. */
function doctorProblems(d: Diagnostics, grid: PlacementStatus | null): Diagnostics['problems'] {
  return grid ? placementProblems(grid) : d.problems;
}

/** `tabwright doctor [--json]`: exit 0 when usable, 1 when something must be fixed first. */
export async function runDoctor(opts: { json?: boolean }): Promise<number> {
  // Every family is listed, installed or not; problems are the default family's (the one sessions
  // use), or the Grid's when sessions run there.
  const engine = new Engine({ backends: everyBackend(chooseBrowser()), placement: gridPlacement() });
  const d = engine.diagnostics();
  const grid = await engine.placementStatus();
  const problems = doctorProblems(d, grid);
  process.stdout.write(
    `${opts.json ? JSON.stringify({ ...d, grid, problems }, null, 2) : formatDiagnostics(d, grid)}\n`,
  );
  return problems.length === 0 ? 0 : 1;
}
