import type { CDPSession } from 'playwright-core';

/** Sends one CDP command on a session and resolves with its result. */
export type CdpSend = ((method: string, params?: object) => Promise<unknown>) & {
  /** True when the calls skip playwright-core's client layer (see directSender). */
  readonly direct: boolean;
};

/** playwright-core's server-side CDP session behind a client one (its `_send` goes to the browser). */
export interface ServerSession {
  _send(method: string, params?: object): Promise<unknown>;
}

interface InProcessConnection {
  toImpl?: (x: unknown) => unknown;
}

/**
 * The sender for a CDP session of the engine's own, on its hottest calls (FastChannel).
 *
 * playwright-core runs in this process: a `CDPSession.send` goes through its client layer (an API zone
 * in an AsyncLocalStorage, a 50-frame stack capture and parse for its error messages, parameter
 * validation), a `setImmediate` hop to its server layer, and another back with the reply. Measured on
 * this 2-core machine, a no-op `Runtime.evaluate` took 0.7-1.0 ms and 0.4-0.65 ms of Node CPU that way,
 * 0.3-0.4 ms and 0.1 ms sent to the server layer's session directly. playwright-core's in-process
 * connection hands that session out (`toImpl`, what its own tests use); when it does not (another
 * version, a connected rather than launched driver), the public `send` serves.
 *
 * The server layer's errors are not the client's: a session that went away rejects with an empty
 * message and a `type` of `closed` or `crashed`. They are given the client's wording here, which the
 * channel and the error translation know.
 */
export function directSender(session: CDPSession): CdpSend {
  const server = serverSessionOf(session);
  if (!server) {
    const send = (method: string, params?: object) => session.send(method as never, params as never);
    return Object.assign(send, { direct: false });
  }
  const target = server;
  const send = async (method: string, params?: object) => {
    try {
      return await target._send(method, params);
    } catch (err) {
      throw clientWording(err);
    } finally {
      // The server layer hands its events to the client layer one `setImmediate` later. Resolving a
      // turn later too keeps the order the client path had: what the browser sent before this reply
      // (a navigation, a dialog, a popup, a download) is in the client's state when the caller goes on.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return Object.assign(send, { direct: true });
}

/**
 * The server-side session behind `session`, from playwright-core's in-process connection (`toImpl`),
 * or undefined when the driver does not hand it out.
 */
export function serverSessionOf(session: CDPSession): ServerSession | undefined {
  const connection = (session as unknown as { _connection?: InProcessConnection })._connection;
  try {
    const impl = connection?.toImpl?.(session) as Partial<ServerSession> | undefined;
    return typeof impl?._send === 'function' ? (impl as ServerSession) : undefined;
  } catch {
    return undefined;
  }
}

function clientWording(err: unknown): unknown {
  const type = (err as { type?: unknown } | null)?.type;
  if (type === 'closed') return new Error('Target page, context or browser has been closed');
  if (type === 'crashed') return new Error('Target crashed');
  return err;
}
