export { Engine, type EngineOptions, type SessionRequest } from './engine/engine.js';
export { Session, type SessionInfo, type SessionKind } from './engine/session.js';
export { Page, type PageInfo, type NavigationOutcome } from './engine/page.js';
export { TabwrightError, ERROR_CODES, type ErrorCode, type ErrorPayload } from './engine/errors.js';
export { OriginPolicy } from './engine/policy.js';
export type { OperationOptions } from './engine/deadline.js';
