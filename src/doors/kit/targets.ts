import type { Target } from '../../engine/actions/types.js';
import { TabwrightError } from '../../engine/api.js';

/**
 * The one mapping from a door's wire fields to the engine's Target. Each door names its own fields
 * (the provider's `text_query`, MCP's `visible_text`, the pipe's `ref`); the rules are the same
 * everywhere: exactly one target, `exact` goes with text or role, `frame` with selector or text,
 * `nth` with selector. Refusals are invalid_request naming the door's field, with a reason
 * (several_targets, no_target, not_applicable) a door may render in its own language.
 */
export interface TargetFields {
  ref?: string;
  selector?: string;
  text?: string;
  role?: string;
  /** The accessible name, with role. */
  name?: string;
  exact?: string;
  context?: string;
  frame?: string;
  nth?: string;
  /** One field holding {x, y}. */
  point?: string;
  /** Or two fields. */
  x?: string;
  y?: string;
}

type Kind = 'ref' | 'selector' | 'text' | 'role' | 'point';

function refusal(message: string, field: string, reason: string, extra: Record<string, unknown> = {}) {
  return new TabwrightError('invalid_request', message, { details: { field, reason, ...extra } });
}

export function targetFrom(
  params: Record<string, unknown>,
  names: TargetFields,
  opts: { method: string; required?: boolean },
): Target | undefined {
  const has = (f: string | undefined): f is string => f !== undefined && params[f] !== undefined;
  const given: { kind: Kind; field: string }[] = [];
  if (has(names.ref)) given.push({ kind: 'ref', field: names.ref });
  if (has(names.selector)) given.push({ kind: 'selector', field: names.selector });
  if (has(names.text)) given.push({ kind: 'text', field: names.text });
  if (has(names.role)) given.push({ kind: 'role', field: names.role });
  if (has(names.point)) given.push({ kind: 'point', field: names.point });
  else if (has(names.x) || has(names.y)) given.push({ kind: 'point', field: names.x ?? names.y ?? 'x' });
  const m = opts.method;
  if (given.length > 1) {
    throw refusal(
      `${m}: give exactly one target, not ${given.map((g) => g.field).join(' and ')}.`,
      given[1]!.field,
      'several_targets',
      { fields: given.map((g) => g.field) },
    );
  }
  const kind = given[0]?.kind;
  const notHere = (field: string, goesWith: string[]) =>
    refusal(`${m}: ${field} goes with ${goesWith.join(' or ')}.`, field, 'not_applicable', {
      goes_with: goesWith,
    });
  const wireOf = (ks: Kind[]) =>
    ks.map((k) => names[k === 'point' ? 'point' : k]).filter(Boolean) as string[];
  if (has(names.exact) && kind !== 'text' && kind !== 'role')
    throw notHere(names.exact, wireOf(['text', 'role']));
  if (has(names.frame) && kind !== 'selector' && kind !== 'text')
    throw notHere(names.frame, wireOf(['selector', 'text']));
  if (has(names.nth) && kind !== 'selector') throw notHere(names.nth, wireOf(['selector']));
  for (const f of [names.name, names.context])
    if (has(f) && kind !== 'role') throw notHere(f, wireOf(['role']));

  const v = <T>(f: string | undefined) => (f === undefined ? undefined : (params[f] as T | undefined));
  const frame = v<string>(names.frame);
  const exact = v<boolean>(names.exact);
  switch (kind) {
    case 'ref':
      return { element_ref: String(v(names.ref)) };
    case 'selector': {
      const nth = v<number>(names.nth);
      return {
        selector: String(v(names.selector)),
        ...(frame !== undefined ? { frame } : {}),
        ...(nth !== undefined ? { nth } : {}),
      };
    }
    case 'text':
      return {
        text: String(v(names.text)),
        ...(exact !== undefined ? { exact } : {}),
        ...(frame !== undefined ? { frame } : {}),
      };
    case 'role': {
      const name = v<string>(names.name);
      const context = v<string>(names.context);
      return {
        role: String(v(names.role)),
        ...(name !== undefined ? { name } : {}),
        ...(exact !== undefined ? { exact } : {}),
        ...(context !== undefined ? { context } : {}),
      };
    }
    case 'point': {
      const p = has(names.point)
        ? (v<{ x: number; y: number }>(names.point) ?? { x: Number.NaN, y: Number.NaN })
        : { x: Number(v(names.x)), y: Number(v(names.y)) };
      return { x: p.x, y: p.y };
    }
    default: {
      if (!opts.required) return undefined;
      const fields = [names.ref, names.selector, names.text, names.role, names.point ?? names.x].filter(
        Boolean,
      );
      throw refusal(
        `${m}: No target: give one of ${fields.join(', ')}.`,
        names.ref ?? fields[0] ?? 'target',
        'no_target',
        {
          fields,
        },
      );
    }
  }
}
