import type { OperationOptions } from './deadline.js';
import { TabwrightError } from './errors.js';
import type { Page } from './page.js';

/**
 * Held keys and mouse buttons (press without release), for doors whose
 * protocol has them (key_down / key_up / mouse_down / mouse_up). Unguarded
 * raw input at the pointer's current position: no element checks, no receipt.
 * The origin policy still applies to the page.
 */

export type MouseButton = 'left' | 'right' | 'middle';

function check(page: Page, key?: string): void {
  if (key !== undefined && (typeof key !== 'string' || key === '' || key.includes('+'))) {
    throw new TabwrightError(
      'invalid_request',
      'key must be one key name such as "Shift" or "a" (no chords).',
      {
        details: { field: 'keys' },
      },
    );
  }
  page.assertPageAllowed();
}

export async function keyDown(page: Page, key: string, opts?: OperationOptions): Promise<void> {
  check(page, key);
  await page.run('page.key_down', 'action', opts, () => page.backend.input.keyDown(key));
}

export async function keyUp(page: Page, key: string, opts?: OperationOptions): Promise<void> {
  check(page, key);
  await page.run('page.key_up', 'action', opts, () => page.backend.input.keyUp(key));
}

export async function mouseDown(
  page: Page,
  button: MouseButton = 'left',
  opts?: OperationOptions,
): Promise<void> {
  check(page);
  await page.run('page.mouse_down', 'action', opts, () => page.backend.input.mouseDown(button));
}

export async function mouseUp(
  page: Page,
  button: MouseButton = 'left',
  opts?: OperationOptions,
): Promise<void> {
  check(page);
  await page.run('page.mouse_up', 'action', opts, () => page.backend.input.mouseUp(button));
}

/**
 * Input a person gives through a live view of the page (the HTTP door's
 * dashboard): trusted input as they did it, unguarded, but in the page's
 * queue, so it never interleaves with an agent's action on the same page.
 */
export type LiveInput =
  | { type: 'click'; x: number; y: number }
  | { type: 'text'; text: string }
  | { type: 'key'; key: string };

export async function liveInput(page: Page, ev: LiveInput, opts?: OperationOptions): Promise<void> {
  page.assertPageAllowed();
  await page.run(`page.live_${ev.type}`, 'action', opts, async (d) => {
    const input = page.backend.input;
    if (ev.type === 'click')
      await input.click({ x: ev.x, y: ev.y }, { button: 'left', clickCount: 1, modifiers: [] });
    else if (ev.type === 'text') await input.type(ev.text, d.signal);
    else await input.press(ev.key);
  });
}
