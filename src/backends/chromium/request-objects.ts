import { createRequire } from 'node:module';
import type { Request } from 'playwright-core';

/**
 * Request objects playwright-core keeps in this process (each with its route and response, ≈ 10-18 KB
 * of Node heap: headers on both sides of the driver's in-process connection, the CDP event).
 * playwright-core keeps every request of a page until the page closes, or until 10,000 requests
 * of the whole process are held (then it drops the oldest thousand). A page an agent keeps for
 * hours makes that ≈ 100 MB per process, reached only after tens of minutes: the soak's "memory
 * still filling at minute 10". Ours is 500 (≈ 9 MB at the ≈ 18 KB a heap snapshot shows per request
 * during the soak), still far above the requests one page has in flight at once; response bodies are
 * read when a request finishes, so a dropped object costs the log nothing.
 */
export const MAX_REQUEST_OBJECTS = 500;
let limit = MAX_REQUEST_OBJECTS;

/** For tests: a smaller bound, so a few hundred requests show the trimming. */
export function setRequestObjectLimitForTest(n: number): void {
  limit = n;
}

interface DispatcherConnection {
  maybeDisposeStaleDispatchers(bucket: string): void;
}

interface DriverServer {
  DispatcherConnection?: { prototype: DispatcherConnection & { tabwrightBounded?: boolean } };
  setMaxDispatchersForTest?: (max: number | undefined) => void;
}

/**
 * Lowers the driver's bound for request objects only (its other objects keep theirs: a page,
 * frame or handle in use must never be dropped). Uses playwright-core's own trimming, with our
 * limit while it trims requests. False when this playwright-core has no such hook (the default
 * bound stays; the soak benchmark would show it).
 */
export function boundRequestObjects(): boolean {
  let server: DriverServer | undefined;
  try {
    server = (createRequire(import.meta.url)('playwright-core/lib/coreBundle') as { server?: DriverServer })
      .server;
  } catch {
    return false;
  }
  const proto = server?.DispatcherConnection?.prototype;
  const setMax = server?.setMaxDispatchersForTest;
  if (!proto || typeof proto.maybeDisposeStaleDispatchers !== 'function' || typeof setMax !== 'function')
    return false;
  if (proto.tabwrightBounded) return true;
  const trim = proto.maybeDisposeStaleDispatchers;
  proto.maybeDisposeStaleDispatchers = function (this: DispatcherConnection, bucket: string) {
    if (bucket !== 'Request') return trim.call(this, bucket);
    setMax(limit);
    try {
      return trim.call(this, bucket);
    } finally {
      setMax(undefined);
    }
  };
  proto.tabwrightBounded = true;
  return true;
}

/**
 * One key per request for the engine's records (network log, requests in flight). After the
 * driver dropped a request's object it sends a new object for the same request (same guid) with
 * its later events: the first object seen stays the key. Keys go when the request settles; at
 * most MAX_REQUEST_OBJECTS per page are remembered (the oldest go first).
 */
export class RequestKeys {
  private readonly byGuid = new Map<string, object>();

  of(r: Request): object {
    const guid = (r as unknown as { _guid?: unknown })._guid;
    if (typeof guid !== 'string') return r;
    let key = this.byGuid.get(guid);
    if (!key) {
      key = r;
      this.byGuid.set(guid, key);
      if (this.byGuid.size > MAX_REQUEST_OBJECTS)
        this.byGuid.delete(this.byGuid.keys().next().value as string);
    }
    return key;
  }

  /** The request finished or failed: its key goes after every listener of this event read it. */
  settled(r: Request): void {
    const guid = (r as unknown as { _guid?: unknown })._guid;
    if (typeof guid === 'string') queueMicrotask(() => this.byGuid.delete(guid));
  }

  get size(): number {
    return this.byGuid.size;
  }
}
