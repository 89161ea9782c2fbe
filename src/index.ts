export type { OperationOptions } from './engine/deadline.js';
export { Engine, type EngineOptions, type SessionRequest } from './engine/engine.js';
export { ERROR_CODES, type ErrorCode, type ErrorPayload, TabwrightError } from './engine/errors.js';
export { type NavigationOutcome, Page, type PageInfo } from './engine/page.js';
export { OriginPolicy } from './engine/policy.js';
export { Session, type SessionInfo, type SessionKind } from './engine/session.js';
