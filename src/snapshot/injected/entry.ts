// Bundle entry: the page-side API, exposed by esbuild as the IIFE global __tabwrightSnapshot.
export { create } from './page-script.js';
