#!/usr/bin/env node
// Entry point of the `tabwright` command: runs the built CLI.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write(
    'tabwright is not built yet. Run `npm start` (installs and builds) or `npm run build` first.\n',
  );
  process.exit(1);
}
await import(main);
