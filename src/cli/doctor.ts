import type { Diagnostics } from '../engine/diagnostics.js';
import { Engine } from '../engine/engine.js';
import { chooseBrowser, everyBackend } from './compose.js';

export function formatDiagnostics(d: Diagnostics): string {
  const lines: string[] = [];
  lines.push(`node       ${d.node} (${d.platform})${d.root ? ', running as root' : ''}`);
  if (d.browsers.length === 0) lines.push('browsers   none found');
  for (const b of d.browsers) {
    const mark = b.selected ? '*' : ' ';
    lines.push(
      `browser  ${mark} ${b.family.padEnd(8)} ${b.path}  ${b.version ?? (b.executable ? 'version unknown' : 'not executable')}  [${b.source}]`,
    );
  }
  lines.push(`home       ${d.home}`);
  for (const dir of d.dirs) {
    lines.push(
      `  ${dir.role.padEnd(9)} ${dir.path}  ${dir.exists ? (dir.writable ? 'writable' : 'NOT writable') : 'will be created on first use'}`,
    );
  }
  if (d.problems.length === 0) lines.push('status     ok');
  for (const p of d.problems) {
    lines.push(`problem    ${p.code}: ${p.message}`);
    for (const step of p.manual_steps) lines.push(`           $ ${step}`);
  }
  return lines.join('\n');
}

/** `tabwright doctor [--json]`: exit 0 when usable, 1 when something must be fixed first. */
export function runDoctor(opts: { json?: boolean }): number {
  // Every family is listed, installed or not; problems are the default family's (the one sessions use).
  const d = new Engine({ backends: everyBackend(chooseBrowser()) }).diagnostics();
  process.stdout.write(`${opts.json ? JSON.stringify(d, null, 2) : formatDiagnostics(d)}\n`);
  return d.problems.length === 0 ? 0 : 1;
}
