/**
 * The DOM attributes the doors' DOM views report on interactive elements (snapshot option
 * `attributes`; the engine reports none unless asked): the HTTP door's element lines (its
 * reference's §9.5 whitelist) and the provider's include_dom nodes. `value` is a button-like input's
 * label; fields' values come from the live property, secrets redacted.
 */
export const DOM_ATTRIBUTES: readonly string[] = [
  'title',
  'type',
  'name',
  'role',
  'placeholder',
  'data-date-format',
  'alt',
  'aria-label',
  'aria-expanded',
  'data-state',
  'aria-checked',
  'value',
];
