import type { HttpCredential } from '../backends/backend.js';
import { TabwrightError } from './errors.js';
import type { Session } from './session.js';

/**
 * HTTP authentication (basic / digest) for a live session: the browser answers a server's 401
 * challenge with these credentials, for every tab of the session, without rebuilding anything.
 *
 * Scope, so a password never reaches an origin it was not meant for:
 * - `origins` given: exactly those (each must be allowed by the session's origin policy);
 * - else, a session with an allowlist: its exact allowed origins (hosts allowed only by a pattern
 *   get none; pass them in `origins`);
 * - else (no allowlist): any origin that challenges, as a browser's own login prompt would.
 * Credentials are only ever sent in answer to a challenge, never unasked. Nothing here logs them.
 */

export interface HttpCredentialsInput {
  username: string;
  password: string;
  /** Exact origins (scheme://host[:port]) the credentials are for. */
  origins?: string[];
}

export interface HttpCredentialsScope {
  /** The origins that get the credentials; null = any origin that asks (unrestricted session). */
  origins: string[] | null;
}

function invalid(message: string, field: string): TabwrightError {
  return new TabwrightError('invalid_request', message, { details: { field } });
}

/** The origins the credentials go to (see above), or null for any. */
export function credentialScope(session: Session, input: HttpCredentialsInput): string[] | null {
  const policy = session.policy;
  if (input.origins !== undefined) {
    if (!Array.isArray(input.origins) || input.origins.length === 0)
      throw invalid('origins must be a non-empty list of origins like https://example.com.', 'origins');
    return input.origins.map((o) => {
      let u: URL | undefined;
      try {
        u = new URL(o);
      } catch {}
      if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== o.replace(/\/$/, ''))
        throw invalid(`"${o}" is not an exact http(s) origin; write it as scheme://host[:port].`, 'origins');
      if (!policy.allowsDocument(`${u.origin}/`)) {
        throw new TabwrightError(
          'permission_denied',
          `${u.origin} is outside the session's origin policy; credentials are only given to allowed origins.`,
          { details: { origin: u.origin, reason: 'origin_denied' } },
        );
      }
      return u.origin;
    });
  }
  if (!policy.restricted) return null;
  if (policy.origins.size === 0) {
    throw invalid(
      'The session allows hosts by pattern only; pass origins (exact scheme://host[:port]) to say which of them get the credentials.',
      'origins',
    );
  }
  return [...policy.origins];
}

/** Sets (or with null clears) the session's HTTP credentials on its live browser context. */
export async function setHttpCredentials(
  session: Session,
  input: HttpCredentialsInput | null,
): Promise<HttpCredentialsScope> {
  session.assertAlive();
  if (input === null) {
    await session.guarded(session.context.setHttpCredentials(null));
    return { origins: [] };
  }
  if (typeof input.username !== 'string' || input.username === '' || /[:\r\n]/.test(input.username))
    throw invalid('username must be a non-empty string without ":" or line breaks.', 'username');
  if (typeof input.password !== 'string' || /[\r\n]/.test(input.password))
    throw invalid('password must be a string without line breaks.', 'password');
  const origins = credentialScope(session, input);
  const { username, password } = input;
  const list: HttpCredential[] =
    origins === null ? [{ username, password }] : origins.map((origin) => ({ username, password, origin }));
  await session.guarded(session.context.setHttpCredentials(list));
  return { origins };
}
