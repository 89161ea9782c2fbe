import { NAMED_KEYS } from '../../engine/api.js';
import type { ActionResult, CallOptions } from './results.js';
import type { SnapshotView } from './snapshot-view.js';

/** How a locator finds its one element. Ref locators are bound to the page's latest snapshot; the others resolve afresh each time. */
export type LocatorSpec =
  | { kind: 'ref'; token: string }
  | { kind: 'css'; selector: string }
  | { kind: 'role'; role: string; name?: string; exact: boolean; context?: string };

export type VerifyPredicate = (snapshot: SnapshotView) => unknown;

export interface ClickOptions extends CallOptions {
  /** A synchronous predicate on the snapshot taken after the click: sets verified. */
  verify?: VerifyPredicate;
}

export interface FillOptions extends CallOptions {
  /** Allow filling a sensitive field (password, credential, cc-*, one-time-code, data-private/data-sensitive) for this call. */
  allowSensitive?: boolean;
  /**
   * Replace the value by typing it key by key (keydown / keypress / input / keyup per character)
   * instead of one insertion: for pages that filter on key events (autocomplete lists).
   */
  keyByKey?: boolean;
}

/** The keys press() accepts. */
export const PRESS_KEYS: readonly string[] = NAMED_KEYS;

/** What a Locator needs from its page (the page does the work: one pipeline for locators and observations). */
export interface LocatorHost {
  locatorAction(
    spec: LocatorSpec,
    op: 'click' | 'fill' | 'press' | 'selectOption' | 'scrollIntoView',
    arg: unknown,
    opts: (ClickOptions & FillOptions) | undefined,
  ): Promise<ActionResult>;
}

/** page.locator(...) / page.getByRole(...): a description of one element, acted on with receipts. */
export class Locator {
  constructor(
    private readonly host: LocatorHost,
    readonly spec: LocatorSpec,
  ) {}

  /** Guarded click (trusted mouse input). Pass { verify: s => … } to set verified. */
  click(opts?: ClickOptions): Promise<ActionResult> {
    return this.host.locatorAction(this.spec, 'click', undefined, opts);
  }

  /** Replaces the control's whole value; verified from the control's value read back. */
  fill(text: string, opts?: FillOptions): Promise<ActionResult> {
    return this.host.locatorAction(this.spec, 'fill', text, opts);
  }

  /** One key from the allowlist (PRESS_KEYS) on the element. */
  press(key: string, opts?: ClickOptions): Promise<ActionResult> {
    return this.host.locatorAction(this.spec, 'press', key, opts);
  }

  /** A native <select>: the option whose label matches exactly one option, or a zero-based index. Never the HTML value. */
  selectOption(labelOrIndex: string | number, opts?: CallOptions): Promise<ActionResult> {
    return this.host.locatorAction(this.spec, 'selectOption', labelOrIndex, opts);
  }

  /** Guarded scroll that brings the element into view. */
  scrollIntoView(opts?: CallOptions): Promise<ActionResult> {
    return this.host.locatorAction(this.spec, 'scrollIntoView', undefined, opts);
  }

  toString(): string {
    const s = this.spec;
    if (s.kind === 'ref') return `Locator(ref ${s.token})`;
    if (s.kind === 'css') return `Locator(css ${JSON.stringify(s.selector)})`;
    return `Locator(role ${s.role}${s.name !== undefined ? ` ${JSON.stringify(s.name)}` : ''}${s.context ? ` in ${JSON.stringify(s.context)}` : ''})`;
  }

  toJSON(): unknown {
    return { locator: this.toString() };
  }
}
