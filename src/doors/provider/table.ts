import type { z } from 'zod';
import type { BrowserFamily } from '../../backends/backend.js';
import type { Engine } from '../../engine/engine.js';
import { methodKit } from '../kit/index.js';
import type { Warning } from './envelope.js';

export type MethodGroup = 'core' | 'optional' | 'setup' | 'custom';
export type Stability = 'stable' | 'experimental' | 'deprecated';

/** The draft's feature names (describe.capabilities.features), in the order describe lists them. */
export const FEATURES = [
  'element_refs',
  'a11y_snapshot',
  'dom_snapshot',
  'html_snapshot',
  'full_page_screenshot',
  'attach_existing_browser',
  'persistent_profile',
  'isolated_contexts',
  'js_eval',
  'console_observe',
  'network_observe',
  'file_upload',
  'download_observe',
] as const;
export type Feature = (typeof FEATURES)[number];

export interface ProviderOptions {
  /** The default browser family (session.ensure's browser_preference "auto"). */
  browser: BrowserFamily;
  /** Every family this process can drive, the default first (describe's browser_families). */
  families: readonly BrowserFamily[];
  headed: boolean;
  /** Where persistent profiles (profiles/<name>) and downloads live. */
  home: string;
  allowRawCdp: boolean;
  transport: 'stdio-json' | 'unix-socket-json';
  /**
   * The last recorded run of `tabwright conformance` against this provider for a family, or null
   * (supplied by the CLI, which owns the record: the door does not import the suite).
   */
  lastCertification?: (family: BrowserFamily) => { provider_version: string | null } | null;
}

/** What a handler may touch besides the engine operations: its connection (events) and the warnings of its reply. */
export interface CallContext {
  engine: Engine;
  options: ProviderOptions;
  /** client_session_id → session_id, shared by every connection of the process. */
  clientSessions: Map<string, string>;
  /** Subscribes the calling connection to a session's events. */
  subscribe(sessionId: string): void;
  /** The session closed: no connection gets its events any more. */
  dropEvents(sessionId: string): void;
  /** provider.describe of this process (built once from the methods it serves). */
  describe(): Record<string, unknown>;
  warn(code: string, message: string): void;
  /** Aborted when the connection closes. */
  signal: AbortSignal;
  warnings: Warning[];
}

/** What only the provider protocol needs of a method: how provider.describe lists it. */
export interface ProviderMeta {
  group: MethodGroup;
  stability: Stability;
  /** Result schema, advertised for custom methods. */
  output?: z.ZodType;
  /** False when this backend or process cannot serve the method (then it is not listed and answers unsupported_method). */
  available?: (opts: ProviderOptions) => boolean;
  /** The draft's features this method takes part in: a feature is listed when all of its methods answer. */
  features?: readonly Feature[];
}

/** One provider method: `method({ name, summary, params, ops, meta, run })`, the handler typed by its schema. */
export const method = methodKit<CallContext, ProviderMeta, unknown>();

export type ProviderMethod = ReturnType<typeof method>;
