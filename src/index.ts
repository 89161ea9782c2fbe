// The engine as a library: what every door uses, and what embedders may use directly.
// `createEngine()` is the library's composition root (the Chromium backend); `new Engine({ backends })`
// takes backends of your own.
export { createEngine, defaultBackends, type EngineSettings } from './cli/compose.js';
export type { ActionOptions, ActionSpec, Receipt, Target } from './engine/actions/types.js';
// Every capability as one operation (name, effect, zod input, implementation), as the doors use them.
export { EFFECTS, OPERATIONS, ops } from './engine/api.js';
export type { ConsoleEntry } from './engine/console.js';
export type { OperationOptions } from './engine/deadline.js';
export type { DialogPolicyInput, DialogRecord } from './engine/dialogs.js';
export type { DownloadRecord } from './engine/downloads.js';
export { Engine, type EngineOptions, type SessionRequest } from './engine/engine.js';
export { ERROR_CODES, type ErrorCode, type ErrorPayload, TabwrightError } from './engine/errors.js';
export type { HumanInputRecord, HumanInputStatus } from './engine/human-input.js';
export type { RequestEntry, RequestFilter } from './engine/network-log.js';
export type { BlockedRequest } from './engine/network-policy.js';
export { type NavigationOutcome, Page, type PageInfo } from './engine/page.js';
export { OriginPolicy, type OriginPolicyInput } from './engine/policy.js';
export type { PageScreenshot, ScreenshotRequestOptions } from './engine/screenshots.js';
export type { ScriptResult } from './engine/script.js';
export { Session, type SessionInfo, type SessionKind } from './engine/session.js';
export type { Cookie, StorageArea } from './engine/storage.js';
export {
  type ElementResolver,
  setElementResolver,
  type WaitConditions,
  type WaitRequestOptions,
  type WaitResult,
} from './engine/waits.js';
export type { SnapshotOptions, SnapshotResult } from './snapshot/index.js';
