import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';
import { PipeError } from './errors.js';

/**
 * HMAC of the pipe (normative for tabwright, docs/pipe-protocol.md):
 *   K = HMAC-SHA256(key = hex-decoded hmac_seed, message = "sgclaw-session-v1")
 *   security.hmac = lowercase hex of
 *     HMAC-SHA256(K, seq + "\n" + action + "\n" + expected_domain + "\n" + JCS(params))
 * with JCS = RFC 8785 canonical JSON and seq in decimal.
 */

export const SESSION_KEY_LABEL = 'sgclaw-session-v1';

const SEED_RE = /^[0-9a-fA-F]{16,128}$/;
const MAC_RE = /^[0-9a-f]{64}$/;

/** Why a seed is invalid, or null when it is a hex string of 16-128 digits and even length. */
export function seedProblem(seed: unknown): string | null {
  if (typeof seed !== 'string' || seed.length === 0) return 'session key must not be empty';
  if (!SEED_RE.test(seed)) return 'hmac_seed must be 16-128 hex digits';
  if (seed.length % 2 !== 0) return 'hmac_seed must have an even number of hex digits';
  return null;
}

/** A fresh random seed: 32 bytes, 64 hex digits. */
export function generateSeed(): string {
  return randomBytes(32).toString('hex');
}

/** K from the seed; invalid seeds throw invalid_message ("invalid hmac seed: …"). */
export function deriveSessionKey(seed: string): Buffer {
  const problem = seedProblem(seed);
  if (problem) throw new PipeError('invalid_message', `invalid hmac seed: ${problem}`);
  return createHmac('sha256', Buffer.from(seed, 'hex')).update(SESSION_KEY_LABEL, 'utf8').digest();
}

/** RFC 8785 canonical JSON; a value JCS cannot represent (lone surrogate, NaN, cycle) is invalid_params. */
export function jcs(value: unknown): string {
  let out: string | undefined;
  try {
    out = canonicalize(value);
  } catch (err) {
    throw new PipeError(
      'invalid_params',
      `params cannot be canonicalized (${err instanceof Error ? err.message : String(err)}); send plain JSON with well-formed strings.`,
    );
  }
  if (out === undefined) throw new PipeError('invalid_params', 'params must be a JSON object.');
  return out;
}

/** The exact bytes the MAC covers. */
export function macInput(seq: number, action: string, expectedDomain: string, params: unknown): string {
  return `${seq}\n${action}\n${expectedDomain}\n${jcs(params)}`;
}

export function signCommand(
  key: Buffer,
  seq: number,
  action: string,
  expectedDomain: string,
  params: unknown,
): string {
  return createHmac('sha256', key)
    .update(macInput(seq, action, expectedDomain, params), 'utf8')
    .digest('hex');
}

/** Constant-time check of a command's MAC (64 lowercase hex digits). */
export function verifyCommand(
  key: Buffer,
  cmd: { seq: number; action: string; params: unknown; security: { expected_domain: string; hmac: string } },
): boolean {
  const expected = Buffer.from(
    signCommand(key, cmd.seq, cmd.action, cmd.security.expected_domain, cmd.params),
    'hex',
  );
  const given = MAC_RE.test(cmd.security.hmac) ? Buffer.from(cmd.security.hmac, 'hex') : Buffer.alloc(32);
  // Compare even for malformed input, so timing does not tell the two apart.
  const same = timingSafeEqual(expected, given);
  return same && MAC_RE.test(cmd.security.hmac);
}
