import type { z } from 'zod';
import type { InvalidParams } from '../kit/index.js';

/**
 * The draft's versioning (§16): minor, additive changes must not break a certified provider. So a
 * field this provider does not know, at any depth of `params`, is ignored and reported in
 * `warnings`; a known field of the wrong type is still invalid_request.
 */

export interface UnknownFields {
  /** Dotted paths of the fields that were dropped ("foo", "position.z", "verify.0.extra"). */
  paths: string[];
  /** The params without them. */
  params: Record<string, unknown>;
}

type Issue = z.core.$ZodIssue;

function isUnknownKeys(i: Issue): i is Issue & { keys: string[] } {
  return i.code === 'unrecognized_keys' && Array.isArray((i as { keys?: unknown }).keys);
}

/** The issues that are not about unknown fields (wrong types, missing fields, bad values). */
export function realIssues(err: InvalidParams): Issue[] {
  return err.issues.filter((i) => !isUnknownKeys(i));
}

/** A copy of `value` without `key` at `path` (objects along the path are copied, never mutated). */
function without(value: unknown, path: readonly PropertyKey[], key: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (path.length === 0) {
    if (Array.isArray(value)) return value;
    const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
    return rest;
  }
  const [head, ...tail] = path;
  if (Array.isArray(value)) {
    const copy = value.slice();
    const i = Number(head);
    copy[i] = without(copy[i], tail, key);
    return copy;
  }
  const obj = value as Record<string, unknown>;
  const k = String(head);
  if (!Object.hasOwn(obj, k)) return value;
  return { ...obj, [k]: without(obj[k], tail, key) };
}

/**
 * When every issue of `err` is an unknown field: the params without those fields and their paths.
 * Null when something else is wrong too (the caller refuses with that) or nothing is unknown.
 */
export function dropUnknownFields(params: Record<string, unknown>, err: InvalidParams): UnknownFields | null {
  if (realIssues(err).length > 0) return null;
  const paths: string[] = [];
  let out: unknown = params;
  for (const issue of err.issues) {
    if (!isUnknownKeys(issue)) continue;
    for (const key of issue.keys) {
      paths.push([...issue.path.map(String), key].join('.'));
      out = without(out, issue.path, key);
    }
  }
  return paths.length ? { paths, params: out as Record<string, unknown> } : null;
}
