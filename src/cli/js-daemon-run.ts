// The `tabwright js` daemon itself, started by its entry (js-daemon-main.ts) once the V8 flags are set:
// a composition root like the other commands (it chooses the engine's backends).
import { runDaemon } from '../doors/js/daemon.js';
import { createEngine } from './compose.js';

const i = process.argv.indexOf('--name');
const name = i >= 0 ? (process.argv[i + 1] ?? 'default') : 'default';
runDaemon(name, createEngine, { allowFileUrls: process.argv.includes('--allow-file-urls') }).catch(
  (err: unknown) => {
    process.stderr.write(
      `tabwright js daemon failed to start: ${err instanceof Error ? err.stack : String(err)}\n`,
    );
    process.exit(1);
  },
);
