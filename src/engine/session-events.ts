import type { DownloadRecord } from './downloads.js';
import type { FileChooserRecord } from './file-choosers.js';
import type { Page } from './page.js';
import type { Session } from './session.js';

/**
 * Asynchronous signals of a session, for doors that push events (provider
 * protocol events, MCP notifications): navigations, dialogs, popups,
 * finished downloads, file choosers (headless browsers), crashes and closed pages. `watchSession` installs the
 * hooks; the returned function stops delivery.
 */
export type SessionEvent =
  | { event: 'page.navigated'; session_id: string; page_id: string; url: string }
  | {
      event: 'page.dialog';
      session_id: string;
      page_id: string;
      type: string;
      message: string;
      state: string;
      handled_by: string | null;
    }
  | { event: 'page.popup'; session_id: string; page_id: string; opener_page_id: string; url: string }
  | {
      event: 'download.completed';
      session_id: string;
      page_id: string;
      download_id: string;
      state: 'completed' | 'failed';
      suggested_filename: string;
      path: string;
      size: number | null;
      error: string | null;
    }
  | {
      event: 'page.file_chooser';
      session_id: string;
      page_id: string;
      multiple: boolean;
      accept: string;
      input: FileChooserRecord['input'];
      frame: FileChooserRecord['frame'];
    }
  | { event: 'page.crashed'; session_id: string; page_id: string; url: string }
  | { event: 'page.closed'; session_id: string; page_id: string };

export const SESSION_EVENT_NAMES = [
  'page.navigated',
  'page.dialog',
  'page.popup',
  'download.completed',
  'page.file_chooser',
  'page.crashed',
  'page.closed',
] as const;

export function watchSession(session: Session, listener: (e: SessionEvent) => void): () => void {
  let active = true;
  const emit = (e: SessionEvent) => {
    if (active) listener(e);
  };
  const sid = session.id;
  const offs: (() => void)[] = [];
  const watchPage = (page: Page, adopted: boolean) => {
    const pid = page.id;
    page.backend.onNavigated((url) => emit({ event: 'page.navigated', session_id: sid, page_id: pid, url }));
    page.backend.onCrash(() =>
      emit({ event: 'page.crashed', session_id: sid, page_id: pid, url: page.url() }),
    );
    page.backend.onClose(() => {
      if (!page.backend.isClosed()) return; // a crash, reported above
      emit({ event: 'page.closed', session_id: sid, page_id: pid });
    });
    offs.push(
      page.dialogs.onOpened((r) =>
        emit({
          event: 'page.dialog',
          session_id: sid,
          page_id: pid,
          type: r.type,
          message: r.message,
          state: r.state,
          handled_by: r.handled_by,
        }),
      ),
    );
    offs.push(
      page.fileChoosers.onOpened((r) =>
        emit({
          event: 'page.file_chooser',
          session_id: sid,
          page_id: pid,
          multiple: r.multiple,
          accept: r.accept,
          input: r.input,
          frame: r.frame,
        }),
      ),
    );
    if (adopted) {
      void page.backend.opener().then((opener) => {
        const op = opener ? session.pages().find((p) => p.backend === opener) : undefined;
        if (op) {
          emit({
            event: 'page.popup',
            session_id: sid,
            page_id: pid,
            opener_page_id: op.id,
            url: page.url(),
          });
        }
      });
    }
  };
  for (const p of session.pages()) watchPage(p, false);
  offs.push(session.onPageAdded((p) => watchPage(p, true)));
  offs.push(
    session.downloads.onChange((r: DownloadRecord) => {
      if (r.state === 'in_progress') return;
      emit({
        event: 'download.completed',
        session_id: sid,
        page_id: r.page_id,
        download_id: r.download_id,
        state: r.state,
        suggested_filename: r.suggested_filename,
        path: r.path,
        size: r.size,
        error: r.error,
      });
    }),
  );
  return () => {
    active = false;
    for (const off of offs.splice(0)) off();
  };
}
