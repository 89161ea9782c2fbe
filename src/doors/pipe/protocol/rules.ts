import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isPipeAction, PIPE_ACTIONS, type PipeAction } from './constants.js';
import { PipeError, type PipeErrorCode } from './errors.js';

/**
 * The MAC policy (rules.json), evaluated on both sides: the agent SDK before
 * sending, the host again before executing.
 *   - domains.allowed: exact hosts or "*.suffix" (subdomains only, not the suffix itself)
 *   - pipe_actions: blocked wins over allowed; an action in neither is refused
 *   - storage.key_prefixes: a storage key must start with one (none listed: no storage)
 *   - circuit_breaker: after max_failures failed commands within window_ms,
 *     every command is refused (circuit_open) for cooldown_ms
 */

const HostPattern = z
  .string()
  .regex(/^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i, 'an exact host or "*.suffix"')
  .transform((s) => s.toLowerCase());

export const RulesSchema = z
  .object({
    version: z.literal('1.0'),
    domains: z.object({ allowed: z.array(HostPattern) }),
    pipe_actions: z.object({
      allowed: z.array(z.string()),
      blocked: z.array(z.string()).default([]),
    }),
    storage: z.object({ key_prefixes: z.array(z.string().min(1)) }).optional(),
    circuit_breaker: z
      .object({
        max_failures: z.number().int().min(1),
        window_ms: z.number().int().min(1),
        cooldown_ms: z.number().int().min(0),
      })
      .optional(),
  })
  .passthrough();

export type RulesInput = z.input<typeof RulesSchema>;
export type Rules = z.output<typeof RulesSchema>;

export const DEFAULT_CIRCUIT_BREAKER = { max_failures: 10, window_ms: 60_000, cooldown_ms: 30_000 };

/**
 * Rules in force without a rules file: loopback hosts only, all 14 actions,
 * storage keys starting with "sgclaw_". Real deployments pass --rules.
 */
export const DEFAULT_RULES: Rules = {
  version: '1.0',
  domains: { allowed: ['127.0.0.1', 'localhost'] },
  pipe_actions: { allowed: [...PIPE_ACTIONS], blocked: ['eval', 'executeJsInPage'] },
  storage: { key_prefixes: ['sgclaw_'] },
  circuit_breaker: DEFAULT_CIRCUIT_BREAKER,
};

export function parseRules(value: unknown, source = 'rules'): Rules {
  const res = RulesSchema.safeParse(value);
  if (res.success) return res.data;
  const i = res.error.issues[0]!;
  throw new PipeError(
    'invalid_params',
    `${source}: invalid ${i.path.map(String).join('.') || '(root)'}: ${i.message}. See docs/pipe-protocol.md for the rules.json format.`,
  );
}

export function loadRules(path: string): Rules {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new PipeError('invalid_params', `Cannot read rules file ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PipeError('invalid_params', `Rules file ${path} is not JSON: ${(err as Error).message}`);
  }
  return parseRules(json, path);
}

export function hostMatches(pattern: string, host: string): boolean {
  const h = host.toLowerCase();
  if (pattern.startsWith('*.')) return h.length > pattern.length - 1 && h.endsWith(pattern.slice(1));
  return h === pattern;
}

/** Circuit breaker: counts failures in a sliding window; open for cooldown_ms after tripping. */
export class CircuitBreaker {
  private failures: number[] = [];
  private openUntil = 0;

  constructor(
    private readonly cfg: { max_failures: number; window_ms: number; cooldown_ms: number },
    private readonly onTrip?: (until: number) => void,
  ) {}

  /** ms left while open, else 0. */
  openFor(now = Date.now()): number {
    return this.openUntil > now ? this.openUntil - now : 0;
  }

  recordFailure(now = Date.now()): void {
    this.failures = this.failures.filter((t) => now - t < this.cfg.window_ms);
    this.failures.push(now);
    if (this.failures.length >= this.cfg.max_failures) {
      this.openUntil = now + this.cfg.cooldown_ms;
      this.failures = [];
      this.onTrip?.(this.openUntil);
    }
  }

  recordSuccess(): void {
    // Successes do not reset the window: the breaker counts failures per time.
  }
}

export interface Refusal {
  code: PipeErrorCode;
  message: string;
}

export class MacPolicy {
  readonly rules: Rules;
  readonly breaker: CircuitBreaker;

  constructor(rules: Rules = DEFAULT_RULES, onTrip?: (until: number) => void) {
    this.rules = rules;
    this.breaker = new CircuitBreaker(rules.circuit_breaker ?? DEFAULT_CIRCUIT_BREAKER, onTrip);
  }

  /** The host patterns (for the engine's origin policy). */
  get hostPatterns(): string[] {
    return [...this.rules.domains.allowed];
  }

  /** Actions allowed and known (for init_ack's supported_actions). */
  allowedActions(): PipeAction[] {
    return PIPE_ACTIONS.filter((a) => this.actionRefusal(a) === null);
  }

  actionRefusal(action: string): Refusal | null {
    if (this.rules.pipe_actions.blocked.includes(action)) {
      return {
        code: 'action_not_allowed',
        message: `Action "${action}" is blocked by the MAC policy (pipe_actions.blocked). Use another action.`,
      };
    }
    if (!isPipeAction(action)) {
      return {
        code: 'unknown_action',
        message: `Unknown action "${action}". Protocol 1.0 has: ${PIPE_ACTIONS.join(', ')}.`,
      };
    }
    if (!this.rules.pipe_actions.allowed.includes(action)) {
      return {
        code: 'action_not_allowed',
        message: `Action "${action}" is not in pipe_actions.allowed of the MAC policy. Add it to rules.json on both sides, or use an allowed action.`,
      };
    }
    return null;
  }

  hostAllowed(host: string): boolean {
    return host !== '' && this.rules.domains.allowed.some((p) => hostMatches(p, host));
  }

  domainRefusal(expectedDomain: string): Refusal | null {
    if (this.hostAllowed(expectedDomain)) return null;
    return {
      code: 'domain_not_allowed',
      message: `Domain "${expectedDomain}" is not in domains.allowed of the MAC policy. Allowed: ${this.rules.domains.allowed.join(', ') || '(none)'}.`,
    };
  }

  storageKeyRefusal(key: string): Refusal | null {
    const prefixes = this.rules.storage?.key_prefixes ?? [];
    if (prefixes.some((p) => key.startsWith(p))) return null;
    return {
      code: 'storage_key_not_allowed',
      message: prefixes.length
        ? `Storage key "${key}" does not start with an allowed prefix (${prefixes.join(', ')}). Use a key with one of them.`
        : 'The MAC policy allows no storage keys (storage.key_prefixes is empty or missing).',
    };
  }

  circuitRefusal(now = Date.now()): Refusal | null {
    const ms = this.breaker.openFor(now);
    if (ms === 0) return null;
    return {
      code: 'circuit_open',
      message: `The circuit breaker is open after repeated failures; every command is refused for another ${ms} ms. Wait, then check why commands failed.`,
    };
  }
}
