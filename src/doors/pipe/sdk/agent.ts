import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { type ActionParams, hostOf, parseActionParams } from '../protocol/actions.js';
import {
  ACTION_TIMEOUT_MS,
  HANDSHAKE_TIMEOUT_MS,
  type PipeAction,
  PROTOCOL_VERSION,
} from '../protocol/constants.js';
import { PipeError, type PipeErrorCode } from '../protocol/errors.js';
import { encodeLine, type FrameEvent, readFrames } from '../protocol/framing.js';
import { deriveSessionKey, seedProblem, signCommand } from '../protocol/hmac.js';
import {
  InitMessage,
  parseJsonObject,
  ResponseMessage,
  type Timing,
  validateMessage,
} from '../protocol/messages.js';
import { DEFAULT_RULES, loadRules, MacPolicy, type Rules } from '../protocol/rules.js';

export type PipeLogger = (
  level: 'debug' | 'info' | 'warn' | 'error',
  msg: string,
  fields?: Record<string, unknown>,
) => void;

/** JSON lines on stderr: {"ts","level","component":"pipe-agent","msg",…fields}. */
export function stderrLogger(minLevel: 'debug' | 'info' | 'warn' | 'error' = 'info'): PipeLogger {
  const order = { debug: 0, info: 1, warn: 2, error: 3 };
  return (level, msg, fields = {}) => {
    if (order[level] < order[minLevel]) return;
    process.stderr.write(
      `${JSON.stringify({ ts: new Date().toISOString(), level, component: 'pipe-agent', msg, ...fields })}\n`,
    );
  };
}

export interface PipeAgentOptions {
  /** Where init and responses arrive (default process.stdin). */
  input?: NodeJS.ReadableStream;
  /** Where init_ack and commands go (default process.stdout). */
  output?: Writable;
  /** The MAC policy: rules, or a rules.json path. Default: $TABWRIGHT_PIPE_RULES (set by `tabwright pipe --rules`), else the default rules. */
  rules?: Rules | string;
  /** supported_actions of init_ack. Default: every action the policy allows. */
  supportedActions?: PipeAction[];
  /** Default 5000 ms. */
  handshakeTimeoutMs?: number;
  /** Default for run(): 30000 ms. */
  actionTimeoutMs?: number;
  /** Default: a random UUID v4. */
  agentId?: string;
  logger?: PipeLogger;
}

/** A handshake that failed on the agent side (the agent should exit non-zero). */
export class PipeHandshakeError extends Error {
  constructor(
    readonly code: 'timeout' | 'invalid_message' | 'version_mismatch' | 'closed',
    message: string,
  ) {
    super(message);
    this.name = 'PipeHandshakeError';
  }
}

/** A command that failed: refused locally before sending (`local`), refused or failed by the browser, or timed out. */
export class PipeToolError extends Error {
  constructor(
    readonly code: PipeErrorCode,
    message: string,
    readonly seq: number | null,
    readonly local: boolean,
    readonly timing?: Timing,
  ) {
    super(message);
    this.name = 'PipeToolError';
  }
}

export interface PipeResult {
  seq: number;
  data: Record<string, unknown>;
  aom_snapshot: unknown[];
  timing: Timing;
}

export interface RunOptions {
  /** Default: the URL's host for navigate/zombieSpawn, else the host of the page last seen by this tool. */
  expected_domain?: string;
  /** Default: the agent's actionTimeoutMs (30 s). */
  timeoutMs?: number;
}

interface Pending {
  resolve: (r: ResponseMessage) => void;
  reject: (e: PipeToolError) => void;
  timer: NodeJS.Timeout;
}

/**
 * One connected agent: handshake done, responses routed by seq. Create it
 * with `await PipeAgent.connect()`; use `agent.tool`.
 */
export class PipeAgent {
  readonly agentId: string;
  readonly capabilities: string[];
  readonly tool: BrowserPipeTool;
  private closedFlag = false;

  private constructor(agentId: string, capabilities: string[], tool: BrowserPipeTool) {
    this.agentId = agentId;
    this.capabilities = capabilities;
    this.tool = tool;
  }

  /** Reads init, validates version and seed, derives the key and answers init_ack. */
  static async connect(opts: PipeAgentOptions = {}): Promise<PipeAgent> {
    const input = opts.input ?? process.stdin;
    const output = opts.output ?? process.stdout;
    const logger = opts.logger ?? stderrLogger((process.env.TABWRIGHT_PIPE_LOG as 'info') ?? 'info');
    const policy = new MacPolicy(resolveRules(opts.rules));
    const agentId = opts.agentId ?? randomUUID();
    const router = new Router(logger);
    let first: ((ev: FrameEvent | null) => void) | null = null;
    const firstFrame = new Promise<FrameEvent | null>((r) => {
      first = r;
    });
    readFrames(
      input,
      (ev) => {
        if (first) {
          const f = first;
          first = null;
          f(ev);
        } else router.onFrame(ev);
      },
      () => {
        first?.(null);
        router.onEnd();
      },
    );
    const timeoutMs = opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const ev = await Promise.race([
      firstFrame,
      new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    const fail = (code: PipeHandshakeError['code'], message: string): never => {
      logger('error', 'handshake failed', { code, error: message });
      if (typeof (input as { pause?: () => void }).pause === 'function')
        (input as { pause: () => void }).pause();
      throw new PipeHandshakeError(code, message);
    };
    if (ev === 'timeout') return fail('timeout', `No init arrived within ${timeoutMs} ms.`);
    if (ev === null) return fail('closed', 'stdin closed before init.');
    if (ev.kind !== 'line')
      return fail('invalid_message', `The first message is not a valid line (${ev.kind}).`);
    let init: InitMessage;
    try {
      const obj = parseJsonObject(ev.text);
      if (obj.type !== 'init')
        return fail('invalid_message', `The first message must be init, not ${JSON.stringify(obj.type)}.`);
      init = validateMessage(InitMessage, obj);
    } catch (err) {
      if (err instanceof PipeHandshakeError) throw err;
      return fail('invalid_message', (err as Error).message);
    }
    if (init.version !== PROTOCOL_VERSION) {
      return fail('version_mismatch', `init version "${init.version}" is not "${PROTOCOL_VERSION}".`);
    }
    const problem = seedProblem(init.hmac_seed);
    if (problem) return fail('invalid_message', `invalid hmac seed: ${problem}`);
    const key = deriveSessionKey(init.hmac_seed);
    const supported = opts.supportedActions ?? policy.allowedActions();
    output.write(
      encodeLine({
        type: 'init_ack',
        version: PROTOCOL_VERSION,
        agent_id: agentId,
        supported_actions: supported,
      }),
    );
    logger('info', 'handshake complete', { agent_id: agentId, supported_actions: supported.length });
    const tool = new BrowserPipeTool(
      key,
      output,
      policy,
      router,
      logger,
      agentId,
      opts.actionTimeoutMs ?? ACTION_TIMEOUT_MS,
    );
    return new PipeAgent(agentId, init.capabilities, tool);
  }

  get closed(): boolean {
    return this.closedFlag;
  }
}

function resolveRules(rules: Rules | string | undefined): Rules {
  if (typeof rules === 'object') return rules;
  const path = rules ?? process.env.TABWRIGHT_PIPE_RULES;
  return path ? loadRules(path) : DEFAULT_RULES;
}

/** Routes responses to the pending command with the same seq; never to another one. */
class Router {
  readonly pending = new Map<number, Pending>();
  ended = false;

  constructor(private readonly logger: PipeLogger) {}

  onFrame(ev: FrameEvent): void {
    if (ev.kind !== 'line') {
      this.logger('warn', 'unreadable line from the browser; ignored', { kind: ev.kind, bytes: ev.bytes });
      return;
    }
    let msg: ResponseMessage;
    try {
      const obj = parseJsonObject(ev.text);
      if (obj.type !== 'response') {
        this.logger('warn', 'unexpected message from the browser; ignored', { type: String(obj.type) });
        return;
      }
      msg = validateMessage(ResponseMessage, obj);
    } catch (err) {
      this.logger('warn', 'invalid response from the browser; ignored', { error: (err as Error).message });
      return;
    }
    const p = this.pending.get(msg.seq);
    if (!p) {
      this.logger('warn', 'response matches no pending command; discarded', {
        seq: msg.seq,
        error_code: msg.error?.code,
        // A seq-0 answer says why the host tied a line to no command (a bad MAC, a replay, …).
        error: msg.error?.message,
      });
      return;
    }
    this.pending.delete(msg.seq);
    clearTimeout(p.timer);
    p.resolve(msg);
  }

  onEnd(): void {
    this.ended = true;
    for (const [seq, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(
        new PipeToolError('internal_error', 'The browser closed the pipe before answering.', seq, false),
      );
    }
    this.pending.clear();
  }
}

/**
 * Sends one action at a time or several concurrently: each gets the next
 * seq, is signed, written as one line, and waits for its own response.
 */
export class BrowserPipeTool {
  private seq = 0;
  /** Host of each page as last seen (main page: ""). */
  private readonly hosts = new Map<string, string>();

  constructor(
    private readonly key: Buffer,
    private readonly output: Writable,
    readonly policy: MacPolicy,
    private readonly router: Router,
    private readonly logger: PipeLogger,
    readonly agentId: string,
    private readonly timeoutMs: number,
  ) {}

  /** The seq of the last command sent. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Validates, pre-checks the MAC policy, signs, sends and awaits the response; throws PipeToolError. */
  async run<A extends PipeAction>(action: A, params: ActionParams[A], opts?: RunOptions): Promise<PipeResult>;
  async run(action: string, params: Record<string, unknown>, opts?: RunOptions): Promise<PipeResult>;
  async run(action: string, params: Record<string, unknown>, opts: RunOptions = {}): Promise<PipeResult> {
    const local = (code: PipeErrorCode, message: string): never => {
      if (code !== 'circuit_open') this.policy.breaker.recordFailure();
      this.logger('warn', 'command refused locally', {
        agent_id: this.agentId,
        action,
        code,
        error: message,
      });
      throw new PipeToolError(code, message, null, true);
    };
    const circuit = this.policy.circuitRefusal();
    if (circuit) return local(circuit.code, circuit.message);
    const refusal = this.policy.actionRefusal(action);
    if (refusal) return local(refusal.code, refusal.message);
    const a = action as PipeAction;
    try {
      parseActionParams(a, params);
    } catch (err) {
      if (err instanceof PipeError) return local(err.code, err.message);
      throw err;
    }
    const pageKey = (params.zombie_id as string | undefined) ?? '';
    const urlHost = a === 'navigate' || a === 'zombieSpawn' ? hostOf(String(params.url)) : undefined;
    const domain = (opts.expected_domain ?? urlHost ?? this.hosts.get(pageKey) ?? '').toLowerCase();
    if (domain === '') {
      return local(
        'domain_not_allowed',
        'No expected_domain: this page has not been navigated by this agent yet. Navigate first or pass expected_domain.',
      );
    }
    const dRefusal = this.policy.domainRefusal(domain);
    if (dRefusal) return local(dRefusal.code, dRefusal.message);
    if (urlHost !== undefined && urlHost !== domain) {
      return local(
        'domain_not_allowed',
        `expected_domain "${domain}" is not the host of the URL ("${urlHost}").`,
      );
    }
    if (a === 'storageSet' || a === 'storageGet') {
      const s = this.policy.storageKeyRefusal(String(params.key));
      if (s) return local(s.code, s.message);
    }
    if (this.router.ended) return local('internal_error', 'The pipe is closed.');

    const seq = ++this.seq;
    const hmac = signCommand(this.key, seq, a, domain, params);
    const line = encodeLine({
      type: 'command',
      seq,
      action: a,
      params,
      security: { expected_domain: domain, hmac },
    });
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const response = new Promise<ResponseMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.router.pending.delete(seq);
        this.policy.breaker.recordFailure();
        this.logger('warn', 'command timed out', {
          agent_id: this.agentId,
          seq,
          action: a,
          timeout_ms: timeoutMs,
        });
        reject(
          new PipeToolError(
            'timeout',
            `No response to seq ${seq} (${a}) within ${timeoutMs} ms.`,
            seq,
            false,
          ),
        );
      }, timeoutMs);
      this.router.pending.set(seq, { resolve, reject, timer });
    });
    this.output.write(line);
    this.logger('debug', 'command sent', { agent_id: this.agentId, seq, action: a, expected_domain: domain });
    const msg = await response;
    if (!msg.success) {
      this.policy.breaker.recordFailure();
      const code = (msg.error?.code ?? 'internal_error') as PipeErrorCode;
      this.logger('warn', 'command failed', {
        agent_id: this.agentId,
        seq,
        action: a,
        code,
        error: msg.error?.message,
      });
      throw new PipeToolError(code, msg.error?.message ?? 'The command failed.', seq, false, msg.timing);
    }
    this.track(a, pageKey, msg.data);
    this.logger('info', 'command ok', { agent_id: this.agentId, seq, action: a, ...msg.timing });
    return { seq, data: msg.data, aom_snapshot: msg.aom_snapshot, timing: msg.timing };
  }

  private track(action: PipeAction, pageKey: string, data: Record<string, unknown>): void {
    if (action === 'zombieSpawn' && typeof data.zombie_id === 'string' && typeof data.url === 'string') {
      this.hosts.set(data.zombie_id, hostOf(data.url));
    } else if (action === 'zombieKill') {
      this.hosts.delete(pageKey);
    } else if (typeof data.url === 'string' && hostOf(data.url) !== '') {
      this.hosts.set(pageKey, hostOf(data.url));
    }
  }
}
