// Entry point of the `tabwright js` daemon process (spawned detached by the CLI): the V8 flags, then
// the daemon (js-daemon-run.ts). Imported, not statically: in the CLI bundle (scripts/bundle-cli.mjs)
// esbuild orders an entry's chunks by what they share, not by the import order written here, so a
// static import of the daemon could run the engine's modules before the flags are set.
import './v8-flags.js';

await import('./js-daemon-run.js');
