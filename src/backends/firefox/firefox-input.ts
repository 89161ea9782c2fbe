import type { Input } from 'webdriver-bidi-protocol';
import type { BackendInput, ClickOptions, Point } from '../backend.js';
import type { BidiConnection } from './bidi-connection.js';
import { translateBidiError } from './translate-error.js';

/** WebDriver's code points for named keys (the spec's "keyboard actions" table). */
const KEYS: Record<string, string> = {
  Cancel: '\uE001',
  Help: '\uE002',
  Backspace: '\uE003',
  Tab: '\uE004',
  Clear: '\uE005',
  Enter: '\uE007',
  Shift: '\uE008',
  ShiftLeft: '\uE008',
  Control: '\uE009',
  ControlLeft: '\uE009',
  Alt: '\uE00A',
  AltLeft: '\uE00A',
  Pause: '\uE00B',
  Escape: '\uE00C',
  Space: ' ',
  PageUp: '\uE00E',
  PageDown: '\uE00F',
  End: '\uE010',
  Home: '\uE011',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
  Insert: '\uE016',
  Delete: '\uE017',
  Meta: '\uE03D',
  MetaLeft: '\uE03D',
  ShiftRight: '\uE050',
  ControlRight: '\uE051',
  AltRight: '\uE052',
  MetaRight: '\uE053',
};
for (let i = 1; i <= 12; i++) KEYS[`F${i}`] = String.fromCharCode(0xe031 + i - 1);

/** A Playwright-style key name ("Enter", "a", "KeyA", "Digit1", "ControlOrMeta") as a WebDriver key value. */
export function keyValue(name: string): string {
  if (name === 'ControlOrMeta') return process.platform === 'darwin' ? KEYS.Meta! : KEYS.Control!;
  const named = KEYS[name];
  if (named) return named;
  const code = /^Key([A-Z])$/.exec(name) ?? /^Digit([0-9])$/.exec(name);
  if (code) return code[1]!.toLowerCase();
  if ([...name].length === 1) return name;
  throw new Error(`Unknown key "${name}"`);
}

/** "Control+Shift+A" → the keys in press order; a lone "+" is the plus key. */
export function chordKeys(chord: string): string[] {
  if (chord === '+') return ['+'];
  const parts = chord.split('+');
  // "Control++" means Control and "+".
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '' && parts[i + 1] === '') {
      out.push('+');
      i++;
    } else if (parts[i] !== '') out.push(parts[i]!);
  }
  return out.map(keyValue);
}

const BUTTON = { left: 0, middle: 1, right: 2 } as const;

type KeyAction = Input.KeySourceAction;
type PointerAction = Input.PointerSourceAction;

/**
 * Trusted input over BiDi input.performActions (events the page sees as the user's). Coordinates
 * are CSS pixels of the top-level viewport. The browser keeps the input state (held keys and
 * buttons, the pointer position) between calls, as the interface expects of key/mouse down and up.
 */
export class FirefoxInput implements BackendInput {
  private at: Point = { x: 0, y: 0 };

  constructor(
    private readonly conn: BidiConnection,
    private readonly context: string,
    private readonly browserAlive: () => boolean,
    /** Types text into the focused element in one input event; false when none took it. */
    private readonly insertInPage: (text: string) => Promise<boolean>,
  ) {}

  private async perform(operation: string, actions: Input.SourceActions[]): Promise<void> {
    try {
      await this.conn.send('input.performActions', { context: this.context, actions });
    } catch (err) {
      throw translateBidiError(err, { operation, browserAlive: this.browserAlive() });
    }
  }

  private keys(actions: KeyAction[]): Input.SourceActions {
    return { type: 'key', id: 'tabwright-keyboard', actions };
  }

  private pointer(actions: PointerAction[]): Input.SourceActions {
    return { type: 'pointer', id: 'tabwright-mouse', parameters: { pointerType: 'mouse' }, actions };
  }

  private moveTo(p: Point, duration = 0): PointerAction {
    this.at = p;
    return { type: 'pointerMove', x: Math.round(p.x), y: Math.round(p.y), origin: 'viewport', duration };
  }

  async click(at: Point, opts: ClickOptions): Promise<void> {
    const mods = opts.modifiers.map(keyValue);
    const button = BUTTON[opts.button];
    const presses: PointerAction[] = [];
    for (let i = 0; i < opts.clickCount; i++)
      presses.push({ type: 'pointerDown', button }, { type: 'pointerUp', button });
    if (mods.length)
      await this.perform('page.click', [this.keys(mods.map((value) => ({ type: 'keyDown', value })))]);
    try {
      await this.perform('page.click', [this.pointer([this.moveTo(at), ...presses])]);
    } finally {
      if (mods.length)
        await this.perform('page.click', [
          this.keys(mods.reverse().map((value) => ({ type: 'keyUp', value }))),
        ]).catch(() => {});
    }
  }

  move(at: Point): Promise<void> {
    return this.perform('page.hover', [this.pointer([this.moveTo(at)])]);
  }

  drag(from: Point, to: Point): Promise<void> {
    const steps: PointerAction[] = [];
    // Intermediate steps: drag-and-drop libraries need movement past a threshold.
    for (let i = 1; i <= 8; i++)
      steps.push(
        this.moveTo({ x: from.x + ((to.x - from.x) * i) / 8, y: from.y + ((to.y - from.y) * i) / 8 }),
      );
    return this.perform('page.drag', [
      this.pointer([
        this.moveTo(from),
        { type: 'pointerDown', button: 0 },
        ...steps,
        { type: 'pointerUp', button: 0 },
      ]),
    ]);
  }

  async wheel(at: Point, dx: number, dy: number): Promise<void> {
    this.at = at;
    await this.perform('page.scroll', [
      {
        type: 'wheel',
        id: 'tabwright-wheel',
        actions: [
          {
            type: 'scroll',
            x: Math.round(at.x),
            y: Math.round(at.y),
            deltaX: Math.round(dx),
            deltaY: Math.round(dy),
            origin: 'viewport',
          },
        ],
      },
    ]);
  }

  async type(text: string, signal?: AbortSignal): Promise<void> {
    for (const ch of text) {
      signal?.throwIfAborted();
      const value = ch === '\n' || ch === '\r' ? KEYS.Enter! : ch === '\t' ? KEYS.Tab! : ch;
      await this.perform('page.type', [
        this.keys([
          { type: 'keyDown', value },
          { type: 'keyUp', value },
        ]),
      ]);
    }
  }

  async insertText(text: string): Promise<void> {
    let done = false;
    try {
      done = await this.insertInPage(text);
    } catch (err) {
      throw translateBidiError(err, { operation: 'page.fill', browserAlive: this.browserAlive() });
    }
    if (done) return;
    // No editable element took the text in one event (e.g. inside a cross-origin frame): type it.
    const actions: KeyAction[] = [];
    for (const ch of text) actions.push({ type: 'keyDown', value: ch }, { type: 'keyUp', value: ch });
    await this.perform('page.fill', [this.keys(actions)]);
  }

  async press(chord: string): Promise<void> {
    let keys: string[];
    try {
      keys = chordKeys(chord);
    } catch (err) {
      throw translateBidiError(err, { operation: 'page.press', browserAlive: this.browserAlive() });
    }
    await this.perform('page.press', [
      this.keys([
        ...keys.map((value): KeyAction => ({ type: 'keyDown', value })),
        ...[...keys].reverse().map((value): KeyAction => ({ type: 'keyUp', value })),
      ]),
    ]);
  }

  keyDown(key: string): Promise<void> {
    return this.perform('page.key_down', [this.keys([{ type: 'keyDown', value: keyValue(key) }])]);
  }

  keyUp(key: string): Promise<void> {
    return this.perform('page.key_up', [this.keys([{ type: 'keyUp', value: keyValue(key) }])]);
  }

  mouseDown(button: 'left' | 'right' | 'middle'): Promise<void> {
    return this.perform('page.mouse_down', [
      this.pointer([this.moveTo(this.at), { type: 'pointerDown', button: BUTTON[button] }]),
    ]);
  }

  mouseUp(button: 'left' | 'right' | 'middle'): Promise<void> {
    return this.perform('page.mouse_up', [
      this.pointer([this.moveTo(this.at), { type: 'pointerUp', button: BUTTON[button] }]),
    ]);
  }
}
