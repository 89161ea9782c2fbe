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
// V8 flags first (dist/cli/v8-flags.js says which and why), then the CLI.
await import(fileURLToPath(new URL('../dist/cli/v8-flags.js', import.meta.url)));
await import(main);
