/**
 * The environment for a tabwright process that tabwright itself starts (the `tabwright js` daemon):
 * the caller's, plus a fixed glibc malloc trim threshold unless the caller chose one.
 *
 * Why: glibc raises its mmap threshold, and its trim threshold to twice that, each time a block
 * between 128 KiB and 32 MiB that it had mapped is freed; V8 frees such blocks while it compiles
 * playwright-core's bundles (parser and optimizing-compiler zones, 0.3-1 MB). Every later block
 * below the new threshold then comes from the main heap, which is given back only when 2 × that much
 * is free at its top: measured with one page open, 5-6 MB more anonymous memory per process, and
 * 10-14 MB more for `serve` through /mcp. Setting any of glibc's malloc thresholds in the
 * environment turns that adjustment off. It must be in the environment when the process starts:
 * a command a user or an MCP client starts gets it from bin/tabwright.js run as a program (its sh
 * line sets the same value under the same conditions; `node bin/tabwright.js` does not), the daemon
 * from here, whichever way its CLI was started. Other C libraries ignore the variable.
 */
export const MALLOC_TRIM_THRESHOLD = '131072';

export function daemonEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.MALLOC_TRIM_THRESHOLD_ !== undefined || env.GLIBC_TUNABLES?.includes('glibc.malloc.')) return env;
  return { ...env, MALLOC_TRIM_THRESHOLD_: MALLOC_TRIM_THRESHOLD };
}
