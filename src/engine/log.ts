import pino from 'pino';

/**
 * Structured logs, always to stderr: stdout belongs to whichever door owns
 * it (provider stdio, MCP stdio, the sgClaw pipe). Level from TABWRIGHT_LOG.
 */
export const log = pino(
  { name: 'tabwright', level: process.env.TABWRIGHT_LOG ?? 'info', base: { pid: process.pid } },
  pino.destination({ fd: 2, sync: true }),
);

export type Logger = typeof log;
