// Entry point of the `tabwright js` daemon process (spawned detached by the CLI).
import { runDaemon } from './daemon.js';

const i = process.argv.indexOf('--name');
const name = i >= 0 ? (process.argv[i + 1] ?? 'default') : 'default';
runDaemon(name, { allowFileUrls: process.argv.includes('--allow-file-urls') }).catch((err: unknown) => {
  process.stderr.write(
    `tabwright js daemon failed to start: ${err instanceof Error ? err.stack : String(err)}\n`,
  );
  process.exit(1);
});
