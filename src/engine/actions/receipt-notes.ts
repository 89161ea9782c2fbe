/**
 * What a receipt's hint and warnings say, as codes with the values they name. The engine's English
 * text is written here, once; a door that speaks another language (the HTTP door speaks Chinese)
 * renders the same code in its own words instead of passing English through.
 */

export type HintCode =
  /** check / uncheck on a box already in that state: nothing was sent. */
  | 'already_checked'
  | 'already_unchecked'
  /** A wheel on a page or element that has nothing to scroll. */
  | 'scroll_page_fits'
  | 'scroll_element_fits'
  /** A wheel towards an end the scroller is at already (params.ends: "bottom", "top,left"…). */
  | 'scroll_at_end'
  /** There was room, and the position did not move (overflow: hidden, or a page wheel handler). */
  | 'scroll_did_not_move'
  /** Dispatched, and nothing changed within the window (params.window_ms). */
  | 'not_observed'
  /** The page could not be read after the action. */
  | 'unreadable_after';

export type WarningCode =
  /** The input went out and the browser call failed (params.error). */
  | 'input_failed'
  /** The page could not be read before or after: change_status rests on what could be read. */
  | 'partly_unreadable'
  /** verify / snapshot_diff were asked for while a held dialog blocks the page. */
  | 'dialog_blocks_checks'
  /** The snapshot diff failed (params.error). */
  | 'no_snapshot_diff'
  /** A dialog is open and held (params.type: alert, confirm, prompt, beforeunload). */
  | 'dialog_held';

export interface Note<C extends string> {
  code: C;
  params?: Record<string, string | number>;
}

const HINTS: Record<HintCode, (p: Record<string, string | number>) => string> = {
  already_checked: () => 'already checked; nothing was sent',
  already_unchecked: () => 'already unchecked; nothing was sent',
  scroll_page_fits: () =>
    'the scroll position did not move: the page fits its viewport, there is nothing to scroll',
  scroll_element_fits: () =>
    'the scroll position did not move: the element’s content fits, it has nothing to scroll (a wheel on it scrolls the scroller around it, if any)',
  scroll_at_end: (p) =>
    `the scroll position did not move: it is at the ${String(p.ends).split(',').join(' and ')} already`,
  scroll_did_not_move: () =>
    'the scroll position did not move though there is room to scroll (overflow: hidden, or the page handles the wheel itself)',
  not_observed: (p) =>
    `Dispatched, but no change was seen within ${p.window_ms} ms. That does not mean the action failed: confirm with a wait condition or a snapshot, and do not repeat it blindly.`,
  unreadable_after: () =>
    'The page could not be read after the action; inspect it (snapshot) before deciding.',
};

const WARNINGS: Record<WarningCode, (p: Record<string, string | number>) => string> = {
  input_failed: (p) =>
    `The input was sent but the browser call failed (${p.error}); it may or may not have taken effect. Inspect the page before repeating it.`,
  partly_unreadable: () =>
    'The page could not be fully read around the action; change_status is based on what could be read.',
  dialog_blocks_checks: () =>
    'Not verified and no snapshot diff: the held dialog blocks the page until it is answered.',
  no_snapshot_diff: (p) => `No snapshot diff: ${p.error}`,
  dialog_held: (p) =>
    `${/^[aeiou]/.test(String(p.type)) ? 'An' : 'A'} ${p.type} dialog is open and held: the page's scripts wait until you accept or dismiss it.`,
};

export const hintText = (n: Note<HintCode>): string => HINTS[n.code](n.params ?? {});
export const warningText = (n: Note<WarningCode>): string => WARNINGS[n.code](n.params ?? {});

/** The receipt fields a note is written to: the English text and, in the same order, its code. */
interface Noted {
  hint?: string;
  warnings: string[];
  notes: { hint?: Note<HintCode>; warnings: Note<WarningCode>[] };
}

export function setHint(r: Noted, n: Note<HintCode>): void {
  r.hint = hintText(n);
  r.notes.hint = n;
}

export function addWarning(r: Noted, n: Note<WarningCode>): void {
  r.warnings.push(warningText(n));
  r.notes.warnings.push(n);
}

/** An error's message, for a note's `error` value. */
export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
