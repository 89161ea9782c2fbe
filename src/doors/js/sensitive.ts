/**
 * Sensitive fields (seed guard): password inputs, autocomplete credentials
 * (current-password, new-password, one-time-code, cc-*), and anything inside
 * [data-private] / [data-sensitive]. Their values are redacted from
 * snapshots and they are refused as fill targets unless a call opts in
 * (the engine refuses: ActionOptions.refuse.sensitive).
 * This is a guard, not DLP. Both functions run in the page and must stay
 * self-contained (they are sent as source).
 */

/** Runs on one element: why it is sensitive, or null (the engine's guard; actions refuse with it). */
export { sensitiveReason } from '../../engine/actions/refuse.js';

/** Runs in the main frame: current values of every sensitive field (to redact wherever they appear). */
export function sensitiveValues(): string[] {
  const out: string[] = [];
  const re = /(^|\s)(current-password|new-password|one-time-code|cc-[a-z-]+)(\s|$)/;
  for (const el of Array.from(document.querySelectorAll('input, textarea, select, [contenteditable]'))) {
    const e = el as HTMLInputElement;
    const ac = (e.getAttribute('autocomplete') ?? '').toLowerCase();
    const sensitive =
      !!e.closest('[data-private],[data-sensitive]') ||
      (e.tagName === 'INPUT' && (e.getAttribute('type') ?? '').toLowerCase() === 'password') ||
      re.test(ac) ||
      ac.includes('password');
    if (!sensitive) continue;
    const v = typeof e.value === 'string' ? e.value : (e.textContent ?? '');
    if (v && v.length >= 2) out.push(v);
  }
  return out.slice(0, 200);
}

/** Replaces every occurrence of the sensitive values in text (longest first). */
export function redactValues(text: string, values: string[]): string {
  let out = text;
  for (const v of [...new Set(values)].sort((a, b) => b.length - a.length)) {
    out = out.split(v).join('[redacted]');
    // The agent text escapes quotes and backslashes inside values.
    const escaped = v.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    if (escaped !== v) out = out.split(escaped).join('[redacted]');
  }
  return out;
}
