#!/bin/sh
//usr/bin/env true; case "${GLIBC_TUNABLES-}" in *glibc.malloc.*) ;; *) export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_-131072}" ;; esac; exec node "$0" "$@"
// Entry point of the `tabwright` command: runs the built CLI.
//
// This file is both a POSIX sh script and an ES module. Run as a program (package.json "bin":
// `npx tabwright …`, an installed `tabwright …`, `./bin/tabwright.js …`), /bin/sh runs line 2 (to
// JavaScript a comment; `//usr/bin/env true` is a no-op command): it sets glibc's malloc trim
// threshold unless the caller set it or a glibc.malloc tunable, then `exec`s node on this file, so
// node replaces the shell: same pid, stdio, signals and exit code, no process added. Run as
// `node bin/tabwright.js …`, node skips line 1 and reads line 2 as a comment: the same CLI, without
// the variable. Why the variable, and why it must be there when node starts: src/cli/malloc-env.ts
// (test/launcher.test.ts holds the launcher to its word). Keep line 2 one line.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The CLI as one bundle (scripts/bundle-cli.mjs says why): dist/bundle/, made by `npm run build`.
const main = fileURLToPath(new URL('../dist/bundle/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write(
    'tabwright is not built yet. Run `npm start` (installs and builds) or `npm run build` first.\n',
  );
  process.exit(1);
}
// V8 flags first (src/cli/v8-flags.ts says which and why), then the CLI.
await import(fileURLToPath(new URL('../dist/bundle/v8-flags.js', import.meta.url)));
await import(main);
