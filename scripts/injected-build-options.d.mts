import type { BuildOptions } from 'esbuild';

export declare const INJECTED_BUILD_OPTIONS: Readonly<BuildOptions & { write: false }>;
