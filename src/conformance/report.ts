import type { ScenarioResult, SuiteResult } from './runner.js';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** One progress line per scenario and run. */
export function progressLine(r: ScenarioResult, index: number, total: number): string {
  const mark = r.ok ? 'pass' : 'FAIL';
  const why = r.ok ? (r.note ? `  ${r.note}` : '') : `  ${r.reason ?? ''}`;
  return `[${String(index).padStart(String(total).length)}/${total}] run ${r.run}  ${mark}  ${pad(r.id, 22)} ${String(r.ms).padStart(6)} ms${why}`;
}

/** The final table: scenario, pass/fail (over runs), reason, time. */
export function formatReport(res: SuiteResult): string {
  const lines: string[] = [];
  const p = res.provider;
  lines.push(
    `provider   ${p.label ?? p.id ?? '(unknown)'}${p.version ? ` ${p.version}` : ''}  —  ${res.command}`,
  );
  lines.push(`runs       ${res.runs}`);
  lines.push('');
  const w = Math.max(...res.summary.map((s) => s.title.length), 8);
  lines.push(`${pad('scenario', w)}  ${pad('kind', 9)}  ${pad('result', 11)}  ${pad('time', 8)}  reason`);
  lines.push(`${'-'.repeat(w)}  ${'-'.repeat(9)}  ${'-'.repeat(11)}  ${'-'.repeat(8)}  ${'-'.repeat(6)}`);
  for (const s of res.summary) {
    const result = `${s.ok ? 'pass' : s.flaky ? 'flaky' : 'FAIL'} ${s.passed}/${s.runs}`;
    lines.push(
      `${pad(s.title, w)}  ${pad(s.kind, 9)}  ${pad(result, 11)}  ${pad(`${s.avg_ms} ms`, 8)}  ${s.ok ? '' : (s.reason ?? '')}`,
    );
  }
  lines.push('');
  lines.push(`tier       ${res.tier}`);
  for (const m of res.missing) lines.push(`missing    ${m}`);
  if (res.to_fix.length) {
    lines.push('');
    lines.push(`to fix (${res.to_fix.length})`);
    for (const [i, f] of res.to_fix.entries()) lines.push(`  ${i + 1}. ${f.scenario}: ${f.fix}`);
  }
  lines.push(`took       ${(res.duration_ms / 1000).toFixed(1)} s`);
  return lines.join('\n');
}
