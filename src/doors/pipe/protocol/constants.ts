/** Constants of the sgClaw browser pipe protocol 1.0 (docs/pipe-protocol.md). */

export const PROTOCOL_VERSION = '1.0';

/** The 14 actions of protocol 1.0, in the order of the frozen `supported_actions` list. */
export const PIPE_ACTIONS = [
  'click',
  'type',
  'navigate',
  'getText',
  'getHtml',
  'waitForSelector',
  'pageScreenshot',
  'select',
  'scrollTo',
  'getAomSnapshot',
  'storageSet',
  'storageGet',
  'zombieSpawn',
  'zombieKill',
] as const;

export type PipeAction = (typeof PIPE_ACTIONS)[number];

export function isPipeAction(name: unknown): name is PipeAction {
  return typeof name === 'string' && (PIPE_ACTIONS as readonly string[]).includes(name);
}

/** At most 1 MiB of UTF-8 per message, the newline not counted. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Recommended timeouts of the seed (both configurable). */
export const HANDSHAKE_TIMEOUT_MS = 5_000;
export const ACTION_TIMEOUT_MS = 30_000;

/** The `capabilities` the host announces in `init`. */
export const CAPABILITIES = ['browser_action'] as const;
