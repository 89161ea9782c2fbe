// esbuild options for the in-page bundles: shared by scripts/build-injected.mjs (the shipped bundles)
// and bench/walker-compare.ts (which builds a base commit's walker the same way, so that a comparison
// never measures a difference in the build instead of the code).
export const INJECTED_BUILD_OPTIONS = Object.freeze({
  bundle: true,
  write: false,
  format: 'iife',
  target: 'es2022',
  platform: 'browser',
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
});
