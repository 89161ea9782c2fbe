import type { BackendDialog, DialogType } from '../backends/backend.js';
import { TabwrightError } from './errors.js';
import { log } from './log.js';
import type { Page } from './page.js';

export type DialogAction = 'accept' | 'dismiss' | 'hold';
export type DialogPolicy = Readonly<Record<DialogType, DialogAction>>;
/** One action for every type, or per type (missing types keep their current action). */
export type DialogPolicyInput = DialogAction | Partial<Record<DialogType, DialogAction>>;

export const DIALOG_TYPES: readonly DialogType[] = ['alert', 'confirm', 'prompt', 'beforeunload'];

/**
 * Default: never stall the page, never say "yes" for the agent. alert and
 * beforeunload are accepted (an alert has one button; leaving a page was
 * asked for), confirm and prompt are dismissed (the safe answer to "Delete
 * this?"). Every dialog is recorded and reported; set `hold` to answer
 * yourself with Page.handleDialog().
 */
export const DEFAULT_DIALOG_POLICY: DialogPolicy = {
  alert: 'accept',
  beforeunload: 'accept',
  confirm: 'dismiss',
  prompt: 'dismiss',
};

export function parseDialogPolicy(
  input: DialogPolicyInput,
  base: DialogPolicy = DEFAULT_DIALOG_POLICY,
): DialogPolicy {
  const actions = ['accept', 'dismiss', 'hold'];
  const bad = (what: string) =>
    new TabwrightError(
      'invalid_request',
      `Dialog policy ${what} is not valid; use "accept", "dismiss" or "hold", for all dialogs or per type (${DIALOG_TYPES.join(', ')}).`,
      { details: { field: 'dialogs' } },
    );
  if (typeof input === 'string') {
    if (!actions.includes(input)) throw bad(`"${input}"`);
    return { alert: input, confirm: input, prompt: input, beforeunload: input };
  }
  if (!input || typeof input !== 'object') throw bad(String(input));
  const out: Record<DialogType, DialogAction> = { ...base };
  for (const [k, v] of Object.entries(input)) {
    if (!DIALOG_TYPES.includes(k as DialogType)) throw bad(`type "${k}"`);
    if (!actions.includes(v as string)) throw bad(`"${String(v)}" for ${k}`);
    out[k as DialogType] = v as DialogAction;
  }
  return out;
}

export interface DialogRecord {
  /** Increases per page; receipts ask for the dialogs after the seq they saw last. */
  seq: number;
  page_id: string;
  type: DialogType;
  message: string;
  default_value: string;
  opened_at: string;
  /** pending: held for the caller (the page's script is blocked until it is answered). */
  state: 'pending' | 'accepted' | 'dismissed';
  /** Who answered: the session's policy, the caller, or nobody yet. */
  handled_by: 'policy' | 'caller' | null;
  prompt_text: string | null;
  closed_at: string | null;
}

const KEEP = 50;

/** The dialogs of one page: answered by the session's policy, or held for the caller. */
export class PageDialogs {
  private seq = 0;
  private readonly history: DialogRecord[] = [];
  private held: { record: DialogRecord; dialog: BackendDialog } | null = null;
  private readonly openListeners = new Set<(r: DialogRecord) => void>();

  constructor(private readonly page: Page) {
    page.backend.onDialog((d) => this.onDialog(d));
  }

  private onDialog(dialog: BackendDialog): void {
    const record: DialogRecord = {
      seq: ++this.seq,
      page_id: this.page.id,
      type: dialog.type,
      message: dialog.message,
      default_value: dialog.defaultValue,
      opened_at: new Date().toISOString(),
      state: 'pending',
      handled_by: null,
      prompt_text: null,
      closed_at: null,
    };
    this.history.push(record);
    if (this.history.length > KEEP) this.history.shift();
    const action = this.page.session.dialogPolicy[dialog.type] ?? 'dismiss';
    log.debug({ page_id: this.page.id, type: dialog.type, action }, 'dialog opened');
    if (action === 'hold') {
      // A second dialog cannot open while one blocks the page; replace defensively.
      this.held = { record, dialog };
    } else {
      void this.answer(record, dialog, action === 'accept', undefined, 'policy');
    }
    for (const l of this.openListeners) l(record);
  }

  private async answer(
    record: DialogRecord,
    dialog: BackendDialog,
    accept: boolean,
    promptText: string | undefined,
    by: 'policy' | 'caller',
  ): Promise<void> {
    record.state = accept ? 'accepted' : 'dismissed';
    record.handled_by = by;
    record.prompt_text = accept && record.type === 'prompt' ? (promptText ?? record.default_value) : null;
    record.closed_at = new Date().toISOString();
    if (accept)
      await dialog.accept(record.type === 'prompt' ? (promptText ?? record.default_value) : undefined);
    else await dialog.dismiss();
  }

  /** The dialog held for the caller, or null. */
  pending(): DialogRecord | null {
    return this.held ? { ...this.held.record } : null;
  }

  /** Dialogs seen on this page (the last 50), optionally after a seq. */
  list(sinceSeq = 0): DialogRecord[] {
    return this.history.filter((r) => r.seq > sinceSeq).map((r) => ({ ...r }));
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Answers the held dialog. Runs outside the page queue: the operation that opened it may still be waiting. */
  async handle(req: { accept: boolean; prompt_text?: string }): Promise<DialogRecord> {
    const held = this.held;
    if (!held) {
      throw new TabwrightError(
        'invalid_request',
        `No dialog is waiting on page ${this.page.id}. Dialogs are answered by the session's dialog policy unless it says "hold"; read page.pendingDialog() first.`,
        { details: { page_id: this.page.id, reason: 'no_dialog' } },
      );
    }
    if (typeof req.accept !== 'boolean') {
      throw new TabwrightError('invalid_request', 'accept must be true or false.', {
        details: { field: 'accept' },
      });
    }
    if (req.prompt_text !== undefined && held.record.type !== 'prompt') {
      throw new TabwrightError(
        'invalid_request',
        `prompt_text applies only to prompt dialogs; this one is a ${held.record.type}. Drop prompt_text.`,
        { details: { field: 'prompt_text', type: held.record.type } },
      );
    }
    this.held = null;
    await this.answer(held.record, held.dialog, req.accept, req.prompt_text, 'caller');
    return { ...held.record };
  }

  /** Calls `listener` for every dialog that opens from now on; returns the unsubscribe function. */
  onOpened(listener: (r: DialogRecord) => void): () => void {
    this.openListeners.add(listener);
    return () => this.openListeners.delete(listener);
  }

  /** Throws not_ready when a held dialog blocks the page's script (operations would hang). */
  assertNoneHeld(operation: string): void {
    const held = this.held?.record;
    if (!held) return;
    throw new TabwrightError(
      'not_ready',
      `${operation}: a ${held.type} dialog ("${held.message.slice(0, 80)}") is open and blocks the page. Answer it with page.handleDialog({accept}) first.`,
      { retryable: true, details: { page_id: this.page.id, reason: 'dialog_open', dialog: { ...held } } },
    );
  }
}
