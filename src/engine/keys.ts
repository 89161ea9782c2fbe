/**
 * The named keys a door lets a caller press on its own (no chords, no
 * characters): editing, moving and confirming. "Space" stands for " ".
 */
export const NAMED_KEYS: readonly string[] = [
  'Enter',
  'Escape',
  'Tab',
  'Backspace',
  'Delete',
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Space',
];
