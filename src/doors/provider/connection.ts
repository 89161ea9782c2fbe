import { log, TabwrightError, toTabwrightError } from '../../engine/api.js';
import type { Engine } from '../../engine/engine.js';
import { dispatch, InvalidParams, invalidRequest, LineFramer } from '../kit/index.js';
import {
  EnvelopeError,
  errorEnvelope,
  eventEnvelope,
  parseRequest,
  type RequestEnvelope,
  type RequestId,
  successEnvelope,
  type Warning,
} from './envelope.js';
import type { EventRouter, EventSink } from './events.js';
import { MAX_LINE_BYTES } from './framing.js';
import { writeJsonLine } from './json-writer.js';
import type { ProviderTable } from './registry.js';
import type { CallContext, ProviderOptions } from './table.js';
import { dropUnknownFields, realIssues } from './unknown-fields.js';

/** What every connection of one provider process shares. */
export interface ProviderState {
  engine: Engine;
  options: ProviderOptions;
  /** The methods this process serves. */
  table: ProviderTable;
  /** provider.describe of `table` (built once). */
  describe(): Record<string, unknown>;
  events: EventRouter;
  clientSessions: Map<string, string>;
}

/**
 * One client: bytes in, envelopes out. Requests run as they arrive (several
 * in flight; replies carry the request id and may come in any order); the
 * engine's page queues keep operations on one page in arrival order.
 */
export class Connection implements EventSink {
  private readonly framer: LineFramer;
  private readonly inFlight = new Map<RequestId, Promise<void>>();
  private readonly abort = new AbortController();
  private closed = false;

  constructor(
    private readonly state: ProviderState,
    /** Takes one envelope line, possibly in several pieces (the last ends with "\n"). */
    private readonly write: (piece: string) => void,
    maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.framer = new LineFramer(maxLineBytes);
  }

  /** Feeds raw bytes from the transport. */
  push(chunk: Buffer): void {
    for (const ev of this.framer.push(chunk)) this.onFrame(ev);
  }

  /** The transport's input ended; resolves when every request in flight has been answered. */
  async end(): Promise<void> {
    for (const ev of this.framer.end()) this.onFrame(ev);
    await this.drain();
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /** The peer is gone: stop events and abort what is still running. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.state.events.dropSink(this);
    this.abort.abort();
  }

  sendEvent(event: string, payload: Record<string, unknown>): void {
    this.send(eventEnvelope(event, payload));
  }

  private send(envelope: unknown): void {
    if (this.closed) return;
    writeJsonLine(envelope, this.write);
  }

  private onFrame(ev: { kind: 'line'; text: string } | { kind: 'overflow'; bytes: number }): void {
    if (ev.kind === 'overflow') {
      this.send(
        errorEnvelope(
          null,
          new TabwrightError(
            'invalid_request',
            `A line exceeded ${MAX_LINE_BYTES} bytes and was skipped up to its newline. Send smaller requests (file paths instead of inline data).`,
            { details: { reason: 'line_too_long', max_line_bytes: MAX_LINE_BYTES } },
          ),
        ),
      );
      return;
    }
    let env: RequestEnvelope;
    try {
      env = parseRequest(ev.text);
    } catch (err) {
      if (err instanceof EnvelopeError) this.send(errorEnvelope(err.id, err.error));
      else this.send(errorEnvelope(null, err));
      return;
    }
    if (this.inFlight.has(env.id)) {
      this.send(
        errorEnvelope(
          env.id,
          new TabwrightError(
            'invalid_request',
            `Request id ${JSON.stringify(env.id)} is already in flight; use a new id for every request.`,
            { details: { field: 'id', reason: 'duplicate_id' } },
          ),
        ),
      );
      return;
    }
    const p = this.run(env).finally(() => this.inFlight.delete(env.id));
    this.inFlight.set(env.id, p);
  }

  private async run(env: RequestEnvelope): Promise<void> {
    const began = performance.now();
    const warnings: Warning[] = [];
    try {
      const result = await this.call(env, warnings);
      this.send(successEnvelope(env.id, result, warnings));
      log.debug({ method: env.method, ms: performance.now() - began }, 'provider call');
    } catch (err) {
      const e = toTabwrightError(err);
      if (e.code === 'internal_error')
        log.error({ method: env.method, err: String(err) }, 'provider call failed');
      this.send(errorEnvelope(env.id, e));
    }
  }

  /** One request through the kit's dispatch: unknown methods and bad params in the protocol's words. */
  private async call(env: RequestEnvelope, warnings: Warning[]): Promise<unknown> {
    const { state } = this;
    const ctx: CallContext = {
      engine: state.engine,
      options: state.options,
      clientSessions: state.clientSessions,
      subscribe: (sessionId) => state.events.subscribe(sessionId, this),
      dropEvents: (sessionId) => state.events.dropSession(sessionId),
      describe: () => state.describe(),
      warn: (code, message) => warnings.push({ code, message }),
      signal: this.abort.signal,
      warnings,
    };
    const hooks = {
      unknownMethod: (name: string) =>
        new TabwrightError(
          'unsupported_method',
          `This provider does not implement ${name}. Call provider.describe for the methods it does.`,
          { details: { method: name } },
        ),
      // InvalidParams comes back as it is: unknown fields are dropped and the call retried below.
      failure: (err: unknown) => err as Error,
    };
    let params = env.params;
    const ignored: string[] = [];
    // Each pass drops the unknown fields zod found (a nested object is only checked once its parent
    // validates), so a few passes reach every depth; only the schema ran, nothing else did.
    for (let pass = 0; ; pass++) {
      let result: unknown;
      try {
        ({ result } = await dispatch(state.table, env.method, ctx, params, hooks));
      } catch (err) {
        if (!(err instanceof InvalidParams)) throw err;
        const dropped = pass < 8 ? dropUnknownFields(params, err) : null;
        if (!dropped) {
          const real = realIssues(err);
          // A wrong type of a known field is what to report, not the unknown field next to it.
          throw invalidRequest(real.length ? new InvalidParams(err.method, real, err.raw) : err);
        }
        params = dropped.params;
        ignored.push(...dropped.paths);
        continue;
      }
      if (ignored.length)
        warnings.unshift({
          code: 'unknown_params_ignored',
          message: `${env.method} ignored the field(s) it does not know: ${ignored.join(', ')}. They had no effect; provider.describe lists the fields it takes (capabilities.input_schemas).`,
          fields: ignored,
        });
      return result;
    }
  }
}
