import type { Page } from '../page.js';

/**
 * What receipts read from the page's signal trackers (dialogs, downloads,
 * network activity), taken as marks before dispatch and compared after.
 */
export interface SignalMarks {
  dialogSeq: number;
  downloadSeq: number;
  fileChooserSeq: number;
  requestsStarted: number;
  requestsFailed: number;
  blockedSeq: number;
}

export function markSignals(page: Page): SignalMarks {
  const net = page.network.counters();
  return {
    dialogSeq: page.dialogs.lastSeq,
    downloadSeq: page.session.downloads.lastSeq,
    fileChooserSeq: page.fileChoosers.lastSeq,
    requestsStarted: net.started,
    requestsFailed: net.failed,
    blockedSeq: page.session.network.lastSeq,
  };
}

export function signalsSince(page: Page, m: SignalMarks) {
  const net = page.network.counters();
  const dialogs = page.dialogs.list(m.dialogSeq);
  const pending = page.dialogs.pending();
  const opened = pending ?? dialogs[dialogs.length - 1] ?? null;
  const choosers = page.fileChoosers.list(m.fileChooserSeq);
  const chooser = choosers[choosers.length - 1] ?? null;
  return {
    dialog: opened ? { type: opened.type, message: opened.message, state: opened.state } : null,
    /** A file chooser the action opened (intercepted in headless browsers: set files on the input next). */
    file_chooser: chooser
      ? { multiple: chooser.multiple, accept: chooser.accept, input: chooser.input }
      : null,
    downloads: page.session.downloads
      .list(m.downloadSeq)
      .map((d) => ({ download_id: d.download_id, suggested_filename: d.suggested_filename })),
    requests: { count: net.started - m.requestsStarted, failed: net.failed - m.requestsFailed },
    /** Requests the origin policy refused during the action (a blocked popup or form post shows here). */
    blocked: page.session
      .blockedRequests({ since_seq: m.blockedSeq })
      .map((b) => ({ url: b.url, origin: b.origin, kind: b.kind })),
  };
}

/** Document, xhr and fetch requests in flight: what keeps the observation window open. */
export function pendingRequests(page: Page): number {
  return page.network.inflightCount();
}
