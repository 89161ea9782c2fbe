import type { Writable } from 'node:stream';
import { log } from '../../../engine/api.js';
import type { Session } from '../../../engine/session.js';
import {
  ACTION_TIMEOUT_MS,
  CAPABILITIES,
  HANDSHAKE_TIMEOUT_MS,
  isPipeAction,
  MAX_LINE_BYTES,
  type PipeAction,
  PROTOCOL_VERSION,
} from '../protocol/constants.js';
import { PipeError } from '../protocol/errors.js';
import { encodeLine, type FrameEvent, readFrames } from '../protocol/framing.js';
import { deriveSessionKey, generateSeed, verifyCommand } from '../protocol/hmac.js';
import {
  CommandMessage,
  InitAckMessage,
  parseJsonObject,
  type ResponseMessage,
  validateMessage,
} from '../protocol/messages.js';
import type { MacPolicy } from '../protocol/rules.js';
import { BlockedReporter } from './blocked.js';
import { PipeExecutor } from './executor.js';
import type { ActionResult } from './table.js';

export interface PipeHostOptions {
  session: Session;
  policy: MacPolicy;
  /** The agent's stdin (we write) and stdout (we read). */
  toAgent: Writable;
  fromAgent: NodeJS.ReadableStream;
  handshakeTimeoutMs?: number;
  /** Engine deadline of one action (default 25 s, under the agent's 30 s). */
  actionTimeoutMs?: number;
  /** For tests: a fixed seed. Default: 32 random bytes. */
  seed?: string;
  /**
   * Starts a new session in place of one whose browser died (`tabwright pipe`
   * closes the dead one and starts one with the same origin policy). Without
   * it the host cannot recover and says so.
   */
  relaunch?: (dead: Session) => Promise<Session>;
}

export class HandshakeError extends Error {
  constructor(
    readonly code: 'timeout' | 'invalid_message' | 'version_mismatch' | 'agent_exited',
    message: string,
  ) {
    super(message);
    this.name = 'HandshakeError';
  }
}

/**
 * The browser side of the sgClaw pipe: sends `init`, expects `init_ack`,
 * then verifies each `command` (size, schema, HMAC, strict seq, MAC policy,
 * expected_domain) and executes it through the engine, one at a time in
 * arrival order, answering each with exactly one `response`.
 */
export class PipeHost {
  executor: PipeExecutor;
  private readonly blocked = new BlockedReporter();
  agentId: string | null = null;
  supported = new Set<PipeAction>();
  private readonly key: Buffer;
  private readonly seed: string;
  private lastSeq = 0;
  private chain: Promise<void> = Promise.resolve();
  private handshakeWaiter: ((ev: FrameEvent | null) => void) | null = null;
  private early: { ev: FrameEvent; received: number }[] = [];
  private endedResolve!: () => void;
  /** Resolves when the agent's stdout ends and every accepted command has been answered. */
  readonly done: Promise<void>;
  private readonly handshakeTimeoutMs: number;
  private readonly actionTimeoutMs: number;
  /** The browser died and the agent has not been told yet (browser_restarted, once). */
  private deathUntold = false;
  /** Zombie ids the dead browser took with it, for the notice. */
  private readonly lostZombies = new Set<string>();
  /** The relaunch under way, and the session it replaces. */
  private relaunching: { dead: Session; done: Promise<void> } | undefined;

  constructor(private readonly o: PipeHostOptions) {
    this.seed = o.seed ?? generateSeed();
    this.key = deriveSessionKey(this.seed);
    this.handshakeTimeoutMs = o.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
    this.actionTimeoutMs = o.actionTimeoutMs ?? ACTION_TIMEOUT_MS - 5_000;
    this.executor = this.executorFor(o.session);
    const ended = new Promise<void>((r) => {
      this.endedResolve = r;
    });
    this.done = ended.then(() => this.chain);
    readFrames(
      o.fromAgent,
      (ev) => this.onFrame(ev),
      () => {
        this.handshakeWaiter?.(null);
        this.endedResolve();
      },
    );
  }

  private executorFor(session: Session): PipeExecutor {
    // When this browser dies, start the next one at once: the agent's next command should not wait for it.
    session.deathGuard().catch(() => this.onBrowserDied(session));
    return new PipeExecutor(session, session.page(), this.actionTimeoutMs);
  }

  /** The current browser died (idempotent): remember to tell the agent, and relaunch. */
  private onBrowserDied(session: Session): void {
    if (session !== this.executor.session || this.relaunching?.dead === session) return;
    log.warn({ agent_id: this.agentId }, 'pipe: the browser died; starting a new one');
    this.deathUntold = true;
    for (const id of this.executor.zombieIds()) this.lostZombies.add(id);
    const relaunch = this.o.relaunch;
    const done = (async () => {
      if (!relaunch) throw new Error('this host has no way to start a browser');
      const fresh = await relaunch(session);
      this.executor = this.executorFor(fresh);
      log.info({ agent_id: this.agentId }, 'pipe: new browser started after the old one died');
    })();
    const current = { dead: session, done };
    this.relaunching = current;
    // A failed relaunch is tried again with the next command.
    const settle = () => {
      if (this.relaunching === current) this.relaunching = undefined;
    };
    done.then(settle, settle);
  }

  /** Waits for a relaunch in progress (starting one when the browser is gone); refuses when none works. */
  private async browserReady(): Promise<void> {
    if (this.executor.session.alive && !this.relaunching) return;
    this.onBrowserDied(this.executor.session);
    try {
      await this.relaunching?.done;
    } catch (err) {
      throw new PipeError(
        'internal_error',
        `The browser stopped and a new one could not be started (${(err as Error).message}). Nothing was executed; send the command again to retry, or restart tabwright pipe.`,
      );
    }
  }

  /** The notice for the first response after the browser died; `cut` when it died during this command. */
  private restartedError(cut: boolean): PipeError {
    const zombies = this.lostZombies.size
      ? ` and the zombie pages ${[...this.lostZombies].join(', ')} no longer exist`
      : '';
    this.deathUntold = false;
    this.lostZombies.clear();
    return new PipeError(
      'browser_restarted',
      `The browser stopped (it crashed or was killed) and tabwright started a new one. ${cut ? 'This command was cut short: its outcome is unknown.' : 'Nothing of this command was executed.'} All pages of the old browser are gone: the main page is blank (about:blank)${zombies}; refs from earlier snapshots and the old pages' cookies and storage are gone too. Navigate again, then repeat the command.`,
    );
  }

  /** Sends init and waits for a valid init_ack. */
  async handshake(): Promise<{ agent_id: string; supported_actions: string[] }> {
    const first = new Promise<FrameEvent | null>((resolve) => {
      this.handshakeWaiter = resolve;
    });
    this.write({
      type: 'init',
      version: PROTOCOL_VERSION,
      hmac_seed: this.seed,
      capabilities: [...CAPABILITIES],
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), this.handshakeTimeoutMs);
    });
    const ev = await Promise.race([first, timeout]).finally(() => clearTimeout(timer));
    this.handshakeWaiter = null;
    if (ev === 'timeout') {
      throw new HandshakeError('timeout', `The agent sent no init_ack within ${this.handshakeTimeoutMs} ms.`);
    }
    if (ev === null) throw new HandshakeError('agent_exited', 'The agent closed its stdout before init_ack.');
    const fail = (code: 'invalid_message' | 'version_mismatch', message: string): never => {
      this.respond(0, { code, message }, 0, 0);
      throw new HandshakeError(code, message);
    };
    if (ev.kind !== 'line')
      return fail('invalid_message', `The agent's first message is not a valid line (${ev.kind}).`);
    let ack: InitAckMessage;
    try {
      const obj = parseJsonObject(ev.text);
      if (obj.type !== 'init_ack')
        return fail(
          'invalid_message',
          `The agent's first message must be init_ack, not ${JSON.stringify(obj.type)}.`,
        );
      ack = validateMessage(InitAckMessage, obj);
    } catch (err) {
      if (err instanceof HandshakeError) throw err;
      return fail('invalid_message', (err as Error).message);
    }
    if (ack.version !== PROTOCOL_VERSION) {
      return fail('version_mismatch', `init_ack version "${ack.version}" is not "${PROTOCOL_VERSION}".`);
    }
    this.agentId = ack.agent_id;
    const unknown = ack.supported_actions.filter((a) => !isPipeAction(a));
    if (unknown.length)
      log.warn({ agent_id: ack.agent_id, unknown }, 'pipe: init_ack lists unknown actions; ignored');
    this.supported = new Set(ack.supported_actions.filter(isPipeAction));
    log.info({ agent_id: ack.agent_id, supported: [...this.supported] }, 'pipe: handshake complete');
    for (const { ev: e, received } of this.early.splice(0)) this.enqueue(e, received);
    return { agent_id: ack.agent_id, supported_actions: ack.supported_actions };
  }

  private onFrame(ev: FrameEvent): void {
    if (this.handshakeWaiter) {
      const w = this.handshakeWaiter;
      this.handshakeWaiter = null;
      w(ev);
      return;
    }
    const received = performance.now();
    if (this.agentId === null) {
      // Commands may follow init_ack in the same chunk: hold them until the handshake is accepted.
      this.early.push({ ev, received });
      return;
    }
    this.enqueue(ev, received);
  }

  private enqueue(ev: FrameEvent, received: number): void {
    this.chain = this.chain
      .then(() => this.handle(ev, received))
      .catch((err) => {
        log.error({ err: (err as Error).message }, 'pipe: failed to answer a message');
      });
  }

  private async handle(ev: FrameEvent, received: number): Promise<void> {
    const start = performance.now();
    const queueMs = Math.round(start - received);
    // The response's seq: 0 until the line is an accepted command (authentic, in order). A line that
    // fails before that is answered with 0 whatever seq it claims, so a forged or replayed line can
    // never take the answer of the real command with that seq (exactly one response per command seq).
    let seq = 0;
    /** The seq the line claims, for the log only. */
    let claimed: number | undefined;
    let action = '';
    let executing = false;
    try {
      if (ev.kind === 'oversized') {
        throw new PipeError(
          'invalid_message',
          `The line is ${ev.bytes} bytes; at most ${MAX_LINE_BYTES} bytes per message. Nothing was executed.`,
        );
      }
      if (ev.kind === 'invalid_utf8') throw new PipeError('invalid_message', 'The line is not valid UTF-8.');
      const obj = parseJsonObject(ev.text);
      if (Number.isSafeInteger(obj.seq)) claimed = obj.seq as number;
      if (obj.type !== 'command') {
        throw new PipeError(
          'invalid_message',
          `After the handshake the agent sends only "command" messages, not ${JSON.stringify(obj.type)}.`,
        );
      }
      const cmd = validateMessage(CommandMessage, obj);
      action = cmd.action;
      if (!verifyCommand(this.key, cmd)) {
        throw new PipeError(
          'hmac_mismatch',
          `security.hmac does not match this command (seq ${cmd.seq}) under the session key. Nothing was executed and no seq was used; this answer has seq 0 because an unverified line is not tied to any command. Sign seq, action, expected_domain and JCS(params) with the key derived from hmac_seed.`,
        );
      }
      if (cmd.seq !== this.lastSeq + 1) {
        throw new PipeError(
          'seq_out_of_order',
          `seq ${cmd.seq} refused: the next seq is ${this.lastSeq + 1} (a replay, a duplicate or a gap). Nothing was executed; this answer has seq 0 because seq ${cmd.seq} ${cmd.seq <= this.lastSeq ? 'was already answered' : 'is not the next command'}.`,
          { expected: this.lastSeq + 1 },
        );
      }
      this.lastSeq = cmd.seq;
      seq = cmd.seq;
      // The agent hears of a dead browser before anything else runs (the command is not executed).
      await this.browserReady();
      if (this.deathUntold) throw this.restartedError(false);
      executing = true;
      const result = await this.execute(cmd);
      const blocked = await this.blocked.take(this.executor.session);
      if (blocked.length) result.data = { ...result.data, blocked_requests: blocked };
      this.respond(seq, null, queueMs, Math.round(performance.now() - start), result);
      log.info(
        {
          agent_id: this.agentId,
          seq,
          action,
          success: true,
          queue_ms: queueMs,
          exec_ms: Math.round(performance.now() - start),
        },
        'pipe: command',
      );
    } catch (err) {
      let e = err instanceof PipeError ? err : new PipeError('internal_error', (err as Error).message);
      // The browser died during this command: say so with this response (and relaunch, if not yet under way).
      if (executing && (e.details.engine_code === 'browser_not_running' || !this.executor.session.alive)) {
        this.onBrowserDied(this.executor.session);
      }
      if (executing && this.deathUntold) e = this.restartedError(true);
      const execMs = Math.round(performance.now() - start);
      if (e.code !== 'circuit_open') this.o.policy.breaker.recordFailure();
      this.respond(seq, e.toPayload(), queueMs, execMs);
      log.warn(
        {
          agent_id: this.agentId,
          seq,
          ...(seq === 0 && claimed !== undefined ? { claimed_seq: claimed } : {}),
          action,
          success: false,
          code: e.code,
          error: e.message,
          queue_ms: queueMs,
          exec_ms: execMs,
        },
        'pipe: command refused or failed',
      );
    }
  }

  private async execute(cmd: CommandMessage): Promise<ActionResult> {
    const policy = this.o.policy;
    const circuit = policy.circuitRefusal();
    if (circuit) throw new PipeError(circuit.code, circuit.message);
    const refusal = policy.actionRefusal(cmd.action);
    if (refusal) throw new PipeError(refusal.code, refusal.message);
    const action = cmd.action as PipeAction;
    if (!this.supported.has(action)) {
      throw new PipeError(
        'action_not_allowed',
        `Action "${action}" is not in the agent's init_ack supported_actions; it is refused for this session.`,
      );
    }
    // The action's row validates its params, then checks expected_domain (allowed, and the host the
    // command acts on) and the storage key rule before anything runs (table.ts, executor.ts).
    return this.executor.execute(action, cmd.params, {
      policy,
      expectedDomain: cmd.security.expected_domain.toLowerCase(),
    });
  }

  private respond(
    seq: number,
    error: { code: string; message: string } | null,
    queueMs: number,
    execMs: number,
    result?: ActionResult,
  ): void {
    const msg: ResponseMessage = {
      type: 'response',
      seq,
      success: error === null,
      data: result?.data ?? {},
      aom_snapshot: result?.aom_snapshot ?? [],
      timing: { queue_ms: Math.max(0, queueMs), exec_ms: Math.max(0, execMs) },
    };
    if (error) msg.error = error;
    try {
      this.write(msg);
    } catch (err) {
      // Too large for one line: answer with the error instead (still exactly one response).
      const e = err instanceof PipeError ? err : new PipeError('internal_error', String(err));
      this.write({
        type: 'response',
        seq,
        success: false,
        data: {},
        aom_snapshot: [],
        timing: msg.timing,
        error: { code: 'internal_error', message: `The result could not be sent: ${e.message}` },
      });
    }
  }

  private write(msg: unknown): void {
    const line = encodeLine(msg);
    if (!this.o.toAgent.writable) return;
    this.o.toAgent.write(line);
  }

  async close(): Promise<void> {
    await this.executor.close();
  }
}
