/**
 * `npm run fuzz`: long fuzz runs against the doors through their real transports (the built CLI: run
 * `npm run build` first). Prints, per door, the inputs sent, crashes, non-structured replies, silent
 * inputs (owed a reply, none came), hangs and whether a valid request worked afterwards, then every
 * finding with the input that caused it.
 *
 *   npm run fuzz -- --door mcp-http --seconds 300 --seed 7
 *   npm run fuzz -- --door all --count 2000
 *
 * --door <name|all> (default all; several: --door http --door pipe), --count <n> (default 1000 when
 * --seconds is not given), --seconds <s>, --seed <n> (default: the time; printed, so a run repeats),
 * --hang-ms <ms> (no reply within it is a hang; default 20000). Exits 1 when any door had a finding.
 */
import { parseArgs } from 'node:util';
import { FUZZ_DOORS } from '../test/helpers/fuzz/doors/index.js';
import { clean, type FuzzReport, formatReports, runFuzz } from '../test/helpers/fuzz/runner.js';

const { values } = parseArgs({
  options: {
    door: { type: 'string', multiple: true },
    count: { type: 'string' },
    seconds: { type: 'string' },
    seed: { type: 'string' },
    'hang-ms': { type: 'string' },
  },
});
const names = !values.door || values.door.includes('all') ? Object.keys(FUZZ_DOORS) : values.door;
const unknown = names.filter((n) => !(n in FUZZ_DOORS));
if (unknown.length) {
  console.error(
    `unknown door(s) ${unknown.join(', ')}; choose from ${Object.keys(FUZZ_DOORS).join(', ')} or all`,
  );
  process.exit(2);
}
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
const seconds = values.seconds !== undefined ? Number(values.seconds) : undefined;
const count = values.count !== undefined ? Number(values.count) : seconds === undefined ? 1000 : undefined;
const hangMs = values['hang-ms'] !== undefined ? Number(values['hang-ms']) : 20_000;
console.error(
  `fuzz: doors ${names.join(', ')}, seed ${seed}, ${count ?? '∞'} inputs${seconds ? `, ${seconds} s` : ''} per door`,
);

const reports: FuzzReport[] = [];
for (const name of names) {
  const door = FUZZ_DOORS[name]!();
  const report = await runFuzz(door, {
    seed,
    count,
    seconds,
    hangMs,
    progress: (n) => process.stderr.write(`\r${name}: ${n} inputs`),
  });
  process.stderr.write('\n');
  reports.push(report);
}
console.log(formatReports(reports));
process.exit(reports.every(clean) ? 0 : 1);
