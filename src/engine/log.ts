import pino from 'pino';
import { scrubEverywhere } from './semantics/secret-registry.js';

/**
 * Structured logs, always to stderr: stdout belongs to whichever door owns
 * it (provider stdio, MCP stdio, the sgClaw pipe). Level from TABWRIGHT_LOG.
 * Every line goes through the secret rule before it is written: secret
 * values of every live session and secret URL parameters are masked.
 */
export const log = pino(
  {
    name: 'tabwright',
    level: process.env.TABWRIGHT_LOG ?? 'info',
    base: { pid: process.pid },
    hooks: { streamWrite: scrubEverywhere },
  },
  pino.destination({ fd: 2, sync: true }),
);

export type Logger = typeof log;
