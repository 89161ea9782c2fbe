import type { z } from 'zod';
import type { Engine } from '../../engine/engine.js';
import type { Warning } from './envelope.js';

export type MethodGroup = 'core' | 'optional' | 'setup' | 'custom';
export type Stability = 'stable' | 'experimental' | 'deprecated';

export interface ProviderOptions {
  browser: 'chromium';
  headed: boolean;
  /** Where persistent profiles (profiles/<name>) and downloads live. */
  home: string;
  allowRawCdp: boolean;
  transport: 'stdio-json' | 'unix-socket-json';
}

/** What a handler may touch besides the engine: its connection (events) and the warnings of its reply. */
export interface CallContext {
  engine: Engine;
  options: ProviderOptions;
  /** client_session_id → session_id, shared by every connection of the process. */
  clientSessions: Map<string, string>;
  /** Subscribes the calling connection to a session's events. */
  subscribe(sessionId: string): void;
  warn(code: string, message: string): void;
  /** Aborted when the connection closes. */
  signal: AbortSignal;
  warnings: Warning[];
}

export interface MethodDef<S extends z.ZodType = z.ZodType> {
  name: string;
  group: MethodGroup;
  stability: Stability;
  description: string;
  input: S;
  /** Result schema, advertised for custom methods. */
  output?: z.ZodType;
  /** False when this backend or process cannot serve the method (then it is not listed and answers unsupported_method). */
  available?: (opts: ProviderOptions) => boolean;
  handler: (params: z.infer<S>, call: CallContext) => Promise<unknown> | unknown;
}

export function method<S extends z.ZodType>(def: MethodDef<S>): MethodDef {
  return def as unknown as MethodDef;
}
