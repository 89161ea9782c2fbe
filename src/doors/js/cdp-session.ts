import { TabwrightError } from '../../engine/api.js';

/** How a wrapper sends one raw call: the `cdp(targetId | null, method, params)` helper. */
export type RawSend = (
  targetId: string | null,
  method: string,
  params?: Record<string, unknown>,
) => Promise<unknown>;

/**
 * The seed's typed raw helpers for existing scripts: `session.Domain.method(params)` and
 * `new Session(targetId).Domain.method(params)`, over the explicitly routed `cdp()` helper (so
 * they bypass the guards exactly as `cdp()` does, expire refs and are recorded). There is no
 * mutable active session: `session` is the browser target; `session.Domain.method(params,
 * { targetId })` or a `Session` bound to a tab routes elsewhere, and `use()` throws.
 */
export function cdpSession(send: RawSend, targetId: string | null): object {
  const domain = (name: string) =>
    new Proxy(
      {},
      {
        get: (_t, method) =>
          typeof method !== 'string' || method === 'then'
            ? undefined
            : (params?: Record<string, unknown>, route?: { targetId?: string | null }) =>
                send(
                  route?.targetId !== undefined ? route.targetId : targetId,
                  `${name}.${method}`,
                  params ?? {},
                ),
      },
    );
  return new Proxy(
    { targetId },
    {
      get: (t, key) => {
        if (key === 'targetId') return t.targetId;
        if (key === 'use')
          return () => {
            throw new TabwrightError(
              'invalid_request',
              'There is no active session to switch: route each call explicitly, with new Session(targetId) or session.Domain.method(params, { targetId }).',
            );
          };
        if (key === 'toJSON') return () => ({ session: t.targetId ?? 'browser' });
        if (typeof key !== 'string' || !/^[A-Z][A-Za-z]*$/.test(key)) return undefined;
        return domain(key);
      },
    },
  );
}

/** `new Session(targetId)`: typed wrappers bound to one tab (a targetId from listPageTargets()). */
export function sessionClass(send: RawSend): new (targetId?: string | null) => object {
  return function Session(this: unknown, targetId?: string | null) {
    if (targetId !== undefined && targetId !== null && typeof targetId !== 'string')
      throw new TabwrightError(
        'invalid_request',
        'new Session(targetId): a targetId from listPageTargets(), or null.',
      );
    return cdpSession(send, targetId ?? null);
  } as unknown as new (
    targetId?: string | null,
  ) => object;
}
