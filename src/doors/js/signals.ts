import { type OutputOf, ops } from '../../engine/api.js';
import type { Page as EnginePage } from '../../engine/page.js';

/**
 * page.signals(): a bounded digest of what happened on the page since the
 * last read (reading drains it). Built from the engine's logs through its
 * operations (dialogs, downloads, file choosers, blocked requests, adopted
 * popups, crashes; page.log_cursors says where each stood when the Page was
 * handed out) plus the door's own navigation notes. Order of the lines: dialog,
 * crash/disconnect/close, download, file chooser, popup, navigation,
 * blocked request, failed requests.
 */
export interface SignalEvent {
  kind:
    | 'dialog'
    | 'crashed'
    | 'closed'
    | 'disconnected'
    | 'download'
    | 'file_chooser'
    | 'popup'
    | 'navigation'
    | 'blocked'
    | 'failed_requests';
  text: string;
  [k: string]: unknown;
}

const MAX_EVENTS = 100;
const KIND_ORDER: SignalEvent['kind'][] = [
  'dialog',
  'crashed',
  'disconnected',
  'closed',
  'download',
  'file_chooser',
  'popup',
  'navigation',
  'blocked',
  'failed_requests',
];

export class PageSignals {
  private dialogSeq: number;
  private downloadSeq: number;
  private chooserSeq: number;
  /** The crash, disconnection or close was reported (once each). */
  private readonly lifecycleSeen = new Set<SignalEvent['kind']>();
  private blockedSeq: number;
  private failed: number;
  private lastUrl: string;
  private readonly seenPages: Set<string>;
  private notes: SignalEvent[] = [];
  private dropped = 0;

  private constructor(
    private readonly page: EnginePage,
    cursors: OutputOf<typeof ops.logCursors>,
    blockedSince: number,
  ) {
    this.dialogSeq = cursors.dialogs;
    this.downloadSeq = cursors.downloads;
    this.chooserSeq = cursors.file_choosers;
    this.blockedSeq = blockedSince;
    this.failed = cursors.failed_requests;
    this.lastUrl = page.url();
    this.seenPages = new Set(page.session.pages().map((p) => p.id));
  }

  /** Starts watching the page now; refused requests from after `blockedSince` (default: now) too. */
  static async start(page: EnginePage, blockedSince?: number): Promise<PageSignals> {
    const cursors = await ops.logCursors.call(page, {});
    return new PageSignals(page, cursors, blockedSince ?? cursors.blocked_requests);
  }

  /** A note from the door itself (e.g. a navigation it made). */
  note(e: SignalEvent): void {
    this.notes.push(e);
    if (this.notes.length > MAX_EVENTS) {
      this.notes.shift();
      this.dropped++;
    }
  }

  async drain(): Promise<{ events: SignalEvent[]; dropped: number; pendingDialog: unknown }> {
    const p = this.page;
    const s = p.session;
    const events: SignalEvent[] = [...this.notes];
    this.notes = [];
    for (const d of await ops.dialogs.call(p, { since_seq: this.dialogSeq })) {
      const how =
        d.state === 'pending' ? 'waiting for an answer' : `${d.state} by ${d.handled_by ?? 'policy'}`;
      events.push({
        kind: 'dialog',
        text: `dialog ${d.type}: ${JSON.stringify(d.message)} (${how})`,
        type: d.type,
        message: d.message,
        state: d.state,
      });
      this.dialogSeq = Math.max(this.dialogSeq, d.seq);
    }
    const lifecycle = (e: SignalEvent) => {
      if (this.lifecycleSeen.has(e.kind)) return;
      this.lifecycleSeen.add(e.kind);
      events.push(e);
    };
    if (p.crashed)
      lifecycle({
        kind: 'crashed',
        text: `renderer crashed: ${p.url()} (close the page and open another)`,
        url: p.url(),
      });
    if (!s.alive) lifecycle({ kind: 'disconnected', text: 'browser connection lost' });
    else if (p.closed && !p.crashed) lifecycle({ kind: 'closed', text: 'tab closed' });
    for (const d of await ops.downloads.call(s, { since_seq: this.downloadSeq })) {
      this.downloadSeq = Math.max(this.downloadSeq, d.seq);
      if (d.page_id !== p.id) continue;
      events.push({
        kind: 'download',
        text: `download ${d.state}: ${d.suggested_filename}`,
        downloadId: d.download_id,
        state: d.state,
        path: d.path,
      });
    }
    for (const c of await ops.fileChoosers.call(p, { since_seq: this.chooserSeq })) {
      this.chooserSeq = Math.max(this.chooserSeq, c.seq);
      const what = c.input.label ?? c.input.selector ?? 'a file input';
      events.push({
        kind: 'file_chooser',
        text: `file chooser: ${JSON.stringify(what)} (${c.multiple ? 'multiple files' : 'one file'}${c.accept ? `, accept ${c.accept}` : ''}; nothing chosen)`,
        multiple: c.multiple,
        accept: c.accept,
        input: c.input,
        frame: c.frame,
      });
    }
    if (s.alive) {
      for (const other of s.pages()) {
        if (this.seenPages.has(other.id)) continue;
        this.seenPages.add(other.id);
        if (other.openerPageId !== p.id) continue;
        const targetId = await ops.targetId.call(other, {}).catch(() => null);
        events.push({ kind: 'popup', text: `popup: ${other.url()}`, url: other.url(), targetId });
      }
    }
    if (!p.closed) {
      const url = p.url();
      if (url !== this.lastUrl && !events.some((e) => e.kind === 'navigation' && e.url === url)) {
        events.push({ kind: 'navigation', text: `navigated: ${url}`, url });
      }
      this.lastUrl = url;
    }
    for (const b of await ops.blocked.call(s, { since_seq: this.blockedSeq })) {
      this.blockedSeq = Math.max(this.blockedSeq, b.seq);
      if (b.page_id !== null && b.page_id !== p.id) continue;
      events.push({ kind: 'blocked', text: `blocked ${b.kind}: ${b.url}`, url: b.url, origin: b.origin });
    }
    const failed = (await ops.logCursors.call(p, {})).failed_requests;
    if (failed > this.failed) {
      events.push({
        kind: 'failed_requests',
        text: `${failed - this.failed} request(s) failed`,
        count: failed - this.failed,
      });
    }
    this.failed = failed;
    events.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
    let dropped = this.dropped;
    this.dropped = 0;
    if (events.length > MAX_EVENTS) {
      dropped += events.length - MAX_EVENTS;
      events.length = MAX_EVENTS;
    }
    return { events, dropped, pendingDialog: p.closed ? null : await ops.pendingDialog.call(p, {}) };
  }
}
