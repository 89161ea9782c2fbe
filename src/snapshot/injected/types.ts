import type { FoundSecrets } from '../../engine/semantics/secrets.js';

/**
 * Shapes exchanged between the in-page script and the engine. Plain data
 * only: everything here crosses the page boundary as JSON.
 */

export interface RawStates {
  checked?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  pressed?: boolean | 'mixed';
  disabled?: boolean;
  readonly?: boolean;
  required?: boolean;
  invalid?: boolean;
  focused?: boolean;
  level?: number;
}

/** One element of the page model as the page script reports it. Text runs are plain strings. */
export interface RawElement {
  /** Per-document local id; the engine maps it to a session-wide ref. */
  id: number;
  role: string;
  tag: string;
  name?: string;
  text?: string;
  value?: string;
  st?: RawStates;
  /** Attributes the indexed browser-state rendering prints (whitelist; secrets already redacted). */
  attrs?: Record<string, string>;
  /** Interactive role, promoted clickable, or label standing for a hidden checkbox/radio. */
  ia?: 1;
  /** Actionable now: rendered, enabled, not covered. */
  act?: 1;
  /** Disabled (only on interactive nodes). */
  dis?: 1;
  /** Promoted non-semantic clickable: cursor:pointer, onclick or tabindex. */
  clk?: 1;
  /** Covered by another element (modal, overlay) at its centre. */
  cov?: 1;
  /** Bounding box in the frame's viewport coordinates, CSS pixels. */
  box?: [number, number, number, number];
  url?: string;
  hint?: string;
  /** The element is an iframe/frame whose content the engine splices in. */
  frame?: 1;
  /** Shadow root host: 'open' | 'closed'. */
  shadow?: 'open' | 'closed';
  c?: (RawElement | string)[];
  /** Inline semantic elements (strong, code, time, …) collapsed into this node's text: role only. */
  inl?: RawElement[];
}

export interface WalkOptions {
  /** CSS selector of the subtree to snapshot (main frame). */
  selector?: string;
  /** Local id of the subtree root (from a ref), checked against `doc`. */
  scopeId?: number;
  doc?: string;
  boxes?: boolean;
  /** Viewport window margin in px; undefined = whole page. */
  margin?: number;
  urls?: boolean;
  /** DOM attributes to report on interactive elements (none when absent). */
  attrs?: string[];
  /** Stylesheet URLs whose own request failed (the engine's network log): such a sheet has no rules. */
  failedSheets?: string[];
  /**
   * Child frames to walk from here, in the same call: by document id, the local ids of the iframe
   * elements whose (same-origin) frame has the page script already. Only this document's entry is
   * acted on; the rest is passed down, so a frame's own children are walked inside its walk.
   */
  nested?: Record<string, number[]>;
  /**
   * By document id, the local ids of iframe elements whose frame was found blank last time: this
   * document's are reported in `blankFrames` when still blank, even where the walk does not reach
   * them (hidden iframes), so the engine need not probe those frames itself.
   */
  blank?: Record<string, number[]>;
}

/** A child frame's walk made inside its parent's (WalkOptions.nested): its iframe element and the result. */
export interface NestedWalk {
  /** The parent document's id and the iframe element's local id there. */
  doc: string;
  id: number;
  result: WalkResult | WalkError;
}

export interface WalkResult {
  ok: true;
  doc: string;
  /** Secret values the document holds (secrets.ts collectSecrets): registered by the engine, then dropped. */
  secrets?: FoundSecrets;
  url: string;
  title: string;
  root: RawElement;
  viewport: { width: number; height: number; scrollX: number; scrollY: number; pageHeight: number };
  /** Elements left out by the viewport window. */
  outside: number;
  elements: number;
  /**
   * Local ids of the iframe elements whose document this walk could read and found blank (no
   * element, no text in its body): the engine need not ask those frames itself.
   */
  blankFrames?: number[];
  /** Time spent in the page walk (this document's, nested frames excluded). */
  ms: number;
  /** The child frames walked in this call (WalkOptions.nested), their own nested ones hoisted here. */
  nested?: NestedWalk[];
}

export interface WalkError {
  ok: false;
  reason: 'stale_ref' | 'invalid_selector' | 'no_match';
  message: string;
}

export type PageCall =
  | { op: 'walk'; opts: WalkOptions }
  | { op: 'idOf' }
  | { op: 'check'; doc: string; id: number };
