export * from './actions.js';
export * from './constants.js';
export * from './errors.js';
export * from './framing.js';
export * from './hmac.js';
export * from './messages.js';
export * from './rules.js';
