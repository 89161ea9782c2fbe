import type { OperationOptions } from '../deadline.js';
import type { WaitConditions } from '../waits.js';
import type { HintCode, Note, WarningCode } from './receipt-notes.js';
import type { ActionName } from './spec.js';

export type { ActionName, ActionSpec, FilesStep, Modifier, PipelineSpec, Target } from './spec.js';

export interface ActionOptions extends OperationOptions {
  /** Cap of the observation window after dispatch. Default 500 ms. */
  observe_ms?: number;
  /**
   * Observe at least this long even when the page is quiet (capped at observe_ms). Default 0: the
   * window ends as soon as the DOM is quiet. Late effects (a popup opened from a timer) need it.
   */
  observe_min_ms?: number;
  /** Include a snapshot diff of the page in the receipt. Default false. */
  snapshot_diff?: boolean;
  /**
   * A wait condition that proves the action worked (e.g. text_present). It is
   * waited for after the observation window, within the same deadline;
   * `verified` reports whether it held.
   */
  verify?: WaitConditions;
  verify_mode?: 'all' | 'any';
  /**
   * Refusals a door asks for (src/engine/actions/refuse.ts), checked before anything is sent:
   * `sensitive`: typing (fill, type) into a sensitive field (password, credential autocomplete,
   * inside [data-private] / [data-sensitive]); `child_frames`: a target inside an iframe;
   * `unsupported`: a <canvas>, an element inside a closed shadow root, or a custom element with no
   * role of its own (the guard cannot see what input there would hit). A refusal is
   * element_not_actionable, details.status "blocked", reason sensitive_field / frame_unsupported /
   * canvas / closed_shadow_root / custom_component. `origins`: the caller's own allowlist, narrower
   * than the session's: the page and a target frame must be at one of them (permission_denied,
   * reason origin_denied), checked in the same queue slot as the input.
   */
  refuse?: { sensitive?: boolean; child_frames?: boolean; unsupported?: boolean; origins?: string[] };
}

export type ReceiptStatus = 'executed' | 'outcome_unknown';

export interface ValueChange {
  before: string | boolean | null;
  after: string | boolean | null;
}

export interface Receipt {
  action: ActionName;
  status: ReceiptStatus;
  /** What the action was aimed at, as resolved. */
  target: { element_ref?: string; role?: string; name?: string; point?: { x: number; y: number } };
  /**
   * true / false when the action has a built-in read-back (fill, select,
   * check, uncheck: the control's final state), null otherwise. A caller who
   * needs proof for clicks waits for a condition afterwards.
   */
  verified: boolean | null;
  /** Something changed in the observation window. false never means the action failed. */
  changed: boolean;
  change_status: 'observed' | 'not_observed' | 'unknown';
  changes: {
    url?: { before: string; after: string };
    title?: { before: string; after: string };
    tab_count?: { before: number; after: number };
    /** `document.body.innerText` length before/after (main frame), when both reads succeeded. */
    text_length?: { before: number; after: number };
    new_pages: { page_id: string; url: string }[];
    navigated: boolean;
    value?: ValueChange;
    text_changed: boolean;
    structure_changed: boolean;
    form_changed: boolean;
    dom_mutations: number;
  };
  dialog: { type: string; message: string } | null;
  /**
   * A file chooser the action opened. A headless browser intercepts it (no one could see the native
   * dialog) and nothing is chosen: set files on `input.selector` with the page.upload operation next.
   */
  file_chooser: {
    multiple: boolean;
    accept: string;
    input: { id: string | null; name: string | null; label: string | null; selector: string | null };
  } | null;
  downloads: { download_id: string; suggested_filename: string }[];
  observation: { window_ms: number; cap_ms: number; quiet: boolean };
  requests: { count: number; failed: number };
  /** Requests the session's origin policy refused during the action. */
  blocked_requests: { url: string; origin: string; kind: string }[];
  /** How input was delivered. */
  mode: 'trusted' | 'synthetic' | 'none';
  /** The verify condition's outcome, when one was given. */
  verification?: { satisfied: boolean; waited_ms: number; matched?: string[]; failed?: unknown };
  hint?: string;
  warnings: string[];
  /** `hint` and `warnings` as codes with the values they name (same order): for a door's own words. */
  notes: { hint?: Note<HintCode>; warnings: Note<WarningCode>[] };
  /** Snapshot diff text, with options.snapshot_diff. */
  diff?: string;
}
