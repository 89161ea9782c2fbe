/**
 * The engine's surface: the one module a door imports values from (types may come from anywhere
 * in src/engine and src/snapshot with `import type`). Capabilities are operations (`ops`, declared
 * in ./ops/); the rest is what a door needs to speak its protocol: errors, schema building
 * blocks, limits, event streams and the logger. test/layout.test.ts enforces it.
 */

// Process liveness, one rule everywhere (a door watching its parent, the CLI its daemon).
export { isAlive } from '../backends/process-tree.js';
// Deadlines: defaults and limits every door states, and a deadline for a door's own waits.
export { DEFAULT_TIMEOUT_MS, Deadline, MAX_TIMEOUT_MS, type OperationOptions } from './deadline.js';
export { placementProblems } from './diagnostics.js';
// Errors: the 14 normalized codes.
export {
  ERROR_CODES,
  type ErrorCode,
  type ErrorPayload,
  firstLine,
  isTabwrightError,
  TabwrightError,
  toTabwrightError,
} from './errors.js';
export { profileDir, tabwrightHome } from './home.js';
export { DEFAULT_HUMAN_TIMEOUT_S, MAX_LONG_POLL_MS, questionAnswers } from './human-input.js';
// Facts doors print or check against.
export { NAMED_KEYS } from './keys.js';
export { type Logger, log } from './log.js';
export { DEFAULT_OCR_TIMEOUT_MS, describeOcr, type OcrConfig } from './ocr.js';
export * as ops from './ops/all.js';
export {
  EFFECTS,
  type Effect,
  type EffectFacts,
  type InputOf,
  OPERATIONS,
  type Operation,
  type OperationInfo,
  type OutputOf,
  type Scope,
} from './ops/index.js';
export { narrowPolicy, OriginPolicy, type OriginPolicyInput } from './policy.js';
// Schema building blocks doors compose their wire schemas from, and JSON Schema for listings.
export {
  ActionFields,
  ActionOptions,
  ActionSpec,
  ActOptions,
  DialogPolicyInput,
  ElementRef,
  Modifier,
  Policy,
  parseInput,
  parseParams,
  ScreenshotOptions,
  SessionStart,
  SnapshotOptions,
  Target,
  TimeoutMs,
  toJsonSchema,
  WaitConditions,
} from './schemas.js';
export { startLiveView } from './screenshots.js';
// The secret rule for what a door writes itself (recordings, dashboards): values of every session, URL parameters.
export { scrubEverywhere } from './semantics/secret-registry.js';
export { isSecretParam, maskUrl, REDACTED } from './semantics/secrets.js';
// Event streams (not request/reply operations): a session's events, a page's live view.
export { SESSION_EVENT_NAMES, type SessionEvent, watchSession } from './session-events.js';
