import type { BackendFileChooser } from '../backends/backend.js';
import { log } from './log.js';
import type { Page } from './page.js';

/**
 * File choosers a page opened (an <input type=file> was clicked or its picker shown).
 *
 * In a headless browser no person could see a native dialog, so the backend intercepts the chooser
 * and reports it here; nothing is chosen and the input keeps its files. The caller decides: set files
 * on the input (the set_files action, with `input.selector`) or leave it. In a headed browser the
 * native dialog opens for the person at the screen as usual and nothing is recorded.
 */
export interface FileChooserRecord {
  /** Increases per page; receipts and digests ask for the choosers after the seq they saw last. */
  seq: number;
  page_id: string;
  opened_at: string;
  /** The input takes several files. */
  multiple: boolean;
  /** The input's accept attribute ("" when any file). */
  accept: string;
  input: {
    id: string | null;
    name: string | null;
    /** The label's text (or aria-label), whitespace collapsed. */
    label: string | null;
    /** A CSS selector for the input in its frame (by id, else by name), or null when it has neither. */
    selector: string | null;
  };
  frame: 'main' | 'child';
}

const KEEP = 50;

export class PageFileChoosers {
  private seq = 0;
  private readonly history: FileChooserRecord[] = [];
  private readonly openListeners = new Set<(r: FileChooserRecord) => void>();

  constructor(private readonly page: Page) {
    page.backend.onFileChooser((c) => this.onChooser(c));
  }

  private onChooser(c: BackendFileChooser): void {
    const record: FileChooserRecord = {
      seq: ++this.seq,
      page_id: this.page.id,
      opened_at: new Date().toISOString(),
      multiple: c.multiple,
      accept: c.accept,
      input: {
        id: c.id || null,
        name: c.name || null,
        label: c.label || null,
        selector: inputSelector(c),
      },
      frame: c.mainFrame ? 'main' : 'child',
    };
    this.history.push(record);
    if (this.history.length > KEEP) this.history.shift();
    log.debug({ page_id: this.page.id, input: record.input }, 'file chooser opened');
    for (const l of this.openListeners) l(record);
  }

  /** File choosers seen on this page (the last 50), optionally after a seq. */
  list(sinceSeq = 0): FileChooserRecord[] {
    return this.history.filter((r) => r.seq > sinceSeq).map((r) => ({ ...r, input: { ...r.input } }));
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Calls `listener` for every file chooser that opens from now on; returns the unsubscribe function. */
  onOpened(listener: (r: FileChooserRecord) => void): () => void {
    this.openListeners.add(listener);
    return () => this.openListeners.delete(listener);
  }
}

function inputSelector(c: BackendFileChooser): string | null {
  const quote = (v: string) => `"${v.replace(/["\\]/g, '\\$&')}"`;
  if (c.id) return /^[A-Za-z_][\w-]*$/.test(c.id) ? `#${c.id}` : `input[id=${quote(c.id)}]`;
  if (c.name) return `input[type=file][name=${quote(c.name)}]`;
  return null;
}
