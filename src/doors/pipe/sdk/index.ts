/**
 * The agent side of the sgClaw pipe for agents written in TypeScript
 * (`import { PipeAgent } from 'tabwright/pipe'`). The agent is the child
 * process: it reads `init` from stdin, answers `init_ack` on stdout, then
 * sends signed commands with BrowserPipeTool and awaits the matching
 * responses. stdout carries only protocol messages; logs go to stderr.
 */
export * from '../protocol/index.js';
export {
  BrowserPipeTool,
  PipeAgent,
  type PipeAgentOptions,
  PipeHandshakeError,
  type PipeLogger,
  type PipeResult,
  PipeToolError,
  type RunOptions,
  stderrLogger,
} from './agent.js';
