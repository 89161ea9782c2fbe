import type { ElementHandle, Frame, Page } from 'playwright-core';
import type { BackendInput, ClickOptions, Point } from '../backend.js';
import type { FastChannel } from './fast-channel.js';
import { translatePlaywrightError } from './translate-error.js';

/**
 * Trusted input: CDP Input.dispatchMouseEvent / dispatchKeyEvent /
 * insertText through playwright-core's mouse and keyboard. Coordinates are
 * CSS pixels in the page's (main frame's) viewport.
 */
export class ChromiumInput implements BackendInput {
  constructor(
    private readonly pw: Page,
    private readonly browserAlive: () => boolean,
    private readonly fast?: FastChannel,
  ) {}

  private async guarded<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw translatePlaywrightError(err, { operation, browserAlive: this.browserAlive() });
    }
  }

  private async withModifiers<T>(modifiers: readonly string[], fn: () => Promise<T>): Promise<T> {
    for (const m of modifiers) await this.pw.keyboard.down(m);
    try {
      return await fn();
    } finally {
      for (const m of [...modifiers].reverse()) await this.pw.keyboard.up(m).catch(() => {});
    }
  }

  click(at: Point, opts: ClickOptions): Promise<void> {
    return this.guarded('page.click', () =>
      this.withModifiers(opts.modifiers, () =>
        this.pw.mouse.click(at.x, at.y, { button: opts.button, clickCount: opts.clickCount }),
      ),
    );
  }

  keyDown(key: string): Promise<void> {
    return this.guarded('page.key_down', () => this.pw.keyboard.down(key));
  }

  keyUp(key: string): Promise<void> {
    return this.guarded('page.key_up', () => this.pw.keyboard.up(key));
  }

  mouseDown(button: 'left' | 'right' | 'middle'): Promise<void> {
    return this.guarded('page.mouse_down', () => this.pw.mouse.down({ button }));
  }

  mouseUp(button: 'left' | 'right' | 'middle'): Promise<void> {
    return this.guarded('page.mouse_up', () => this.pw.mouse.up({ button }));
  }

  move(at: Point): Promise<void> {
    return this.guarded('page.hover', () => this.pw.mouse.move(at.x, at.y));
  }

  drag(from: Point, to: Point): Promise<void> {
    return this.guarded('page.drag', async () => {
      await this.pw.mouse.move(from.x, from.y);
      await this.pw.mouse.down();
      // Intermediate steps: drag-and-drop libraries need movement past a threshold.
      await this.pw.mouse.move(to.x, to.y, { steps: 8 });
      await this.pw.mouse.up();
    });
  }

  wheel(at: Point, dx: number, dy: number): Promise<void> {
    return this.guarded('page.scroll', async () => {
      await this.pw.mouse.move(at.x, at.y);
      await this.pw.mouse.wheel(dx, dy);
    });
  }

  type(text: string, signal?: AbortSignal): Promise<void> {
    return this.guarded('page.type', async () => {
      // One character at a time (Playwright's own type does the same), checking the signal in between:
      // keyboard.type(text) would run on for minutes after the deadline with the page's queue held.
      for (const ch of text) {
        signal?.throwIfAborted();
        await this.pw.keyboard.type(ch);
      }
    });
  }

  insertText(text: string): Promise<void> {
    return this.guarded('page.fill', async () => {
      if (!(await this.fast?.insertText(text))) await this.pw.keyboard.insertText(text);
    });
  }

  press(chord: string): Promise<void> {
    return this.guarded('page.press', () => this.pw.keyboard.press(chord));
  }
}

/** Sets files on the <input type=file> that `locate` (page function source) returns in `frame`. */
export async function setFilesInFrame(
  frame: Frame,
  locate: (arg: unknown) => unknown,
  arg: unknown,
  files: string[],
  browserAlive: () => boolean,
): Promise<boolean> {
  try {
    const handle = await frame.evaluateHandle(locate, arg);
    const el = handle.asElement() as ElementHandle<HTMLInputElement> | null;
    if (!el) {
      await handle.dispose();
      return false;
    }
    try {
      await el.setInputFiles(files);
      return true;
    } finally {
      void el.dispose().catch(() => {});
    }
  } catch (err) {
    throw translatePlaywrightError(err, { operation: 'upload.set_files', browserAlive: browserAlive() });
  }
}
