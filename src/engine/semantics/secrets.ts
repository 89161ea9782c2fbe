/**
 * The one secret rule: which page elements hold secrets and which URL parameters carry them.
 *
 * Elements (`secretReason`): password inputs, `autocomplete` current-password / new-password /
 * one-time-code / cc-* (also after section-* and billing / shipping prefixes, any token of the
 * list), on inputs, textareas, selects and editable hosts; and every field inside [data-private] /
 * [data-sensitive] (shadow hosts included), a contenteditable marked private among them. A guard,
 * not DLP: static text inside a private region is left as it is (an agent needs labels and button
 * names to act); values are what is secret.
 *
 * `secretReason` and `collectSecrets` run in the page. The snapshot walker and the action probe
 * bundle them (scripts/build-injected.mjs); the engine's reads send their source text
 * (secret-sources.ts). So they stay self-contained: no module constants,
 * no helpers, no named inner functions (tsx would wrap those in a helper the page does not have).
 * test/secret-rule.test.ts checks the source runs on its own.
 *
 * What happens to what the rule finds (redaction at the source, the per-session registry of
 * values and the scrub applied to every output) is in secret-registry.ts; docs/engine-signals.md
 * ("The secret rule") says it for users.
 */

/** Why an element is secret. */
export type SecretReason = 'password' | 'credential' | 'one-time-code' | 'card' | 'data-private';

/** What a secret value is replaced with, everywhere. */
export const REDACTED = '[redacted]';

/** Runs in the page: why `el` holds a secret value, or null. */
export function secretReason(el: Element): SecretReason | null {
  const tag = el.localName;
  const field =
    tag === 'input' ||
    tag === 'textarea' ||
    tag === 'select' ||
    (el as HTMLElement).isContentEditable === true;
  if (!field) return null;
  if (tag === 'input' && (el.getAttribute('type') || '').trim().toLowerCase() === 'password')
    return 'password';
  for (const token of (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/)) {
    if (token === 'one-time-code') return 'one-time-code';
    if (token.startsWith('cc-')) return 'card';
    if (token.includes('password')) return 'credential';
  }
  // A private region: the element or an ancestor, across shadow boundaries.
  for (let n: Element | null = el; n; ) {
    if (n.hasAttribute('data-private') || n.hasAttribute('data-sensitive')) return 'data-private';
    if (n.parentElement) n = n.parentElement;
    else {
      n = (n.getRootNode() as ShadowRoot).host ?? null;
    }
  }
  return null;
}

/** Secret values a page holds, and the form names of the fields that hold them. */
export interface FoundSecrets {
  values: string[];
  names: string[];
}

/**
 * Runs in the page: the current values of the secret fields under `root` (the document when null),
 * open shadow roots included, and their `name` attributes; `reason` is secretReason (passed in so
 * the source text stays one function). At most 200 of each.
 */
export function collectSecrets(
  root: ParentNode | null,
  reason: (el: Element) => string | null,
): FoundSecrets {
  const values: string[] = [];
  const names: string[] = [];
  const start: ParentNode = root ?? document;
  const roots: ParentNode[] = [start];
  for (let i = 0; i < roots.length && values.length < 200; i++) {
    const r = roots[i]!;
    // The fields by selector (in document order, as a scan of every element would meet them): the
    // scan of every element below only asks each for an open shadow root, one read instead of three.
    const list: Element[] = Array.from(r.querySelectorAll('input,textarea,select,[contenteditable]'));
    // nodeType, not instanceof: a field made in another realm (an iframe's) is as secret here.
    const self = i === 0 && (start as Node).nodeType === 1 ? (start as Element) : null;
    if (self) {
      if (self.shadowRoot) roots.push(self.shadowRoot);
      const t = self.localName;
      if (t === 'input' || t === 'textarea' || t === 'select' || self.hasAttribute('contenteditable'))
        list.unshift(self);
    }
    const all = r.querySelectorAll('*');
    for (let j = 0; j < all.length; j++) {
      const sr = all[j]!.shadowRoot;
      if (sr) roots.push(sr);
    }
    for (let j = 0; j < list.length && values.length < 200; j++) {
      const el = list[j]!;
      const tag = el.localName;
      const control = tag === 'input' || tag === 'textarea' || tag === 'select';
      // Editable hosts carry the attribute (isContentEditable itself needs style: asked only then).
      const host = !control && (el as HTMLElement).isContentEditable === true;
      if (!control && !host) continue;
      if (!reason(el)) continue;
      let v = '';
      if (tag === 'select') {
        const picked: string[] = [];
        for (const o of Array.from((el as HTMLSelectElement).selectedOptions))
          picked.push(o.label || o.text, o.value);
        v = picked.join('\n');
      } else if (control) v = String((el as HTMLInputElement).value ?? '');
      else v = (el as HTMLElement).innerText || el.textContent || '';
      for (const part of v.split('\n')) if (part.trim()) values.push(part.trim());
      const attr = tag === 'input' ? el.getAttribute('value') : tag === 'textarea' ? el.textContent : null;
      if (attr && attr.trim() && attr !== v) values.push(attr.trim());
      const name = el.getAttribute('name');
      if (name && names.length < 200) names.push(name);
    }
  }
  return { values, names };
}

/**
 * Runs in the page: `el`, or when something under it is secret a detached copy of it without the
 * secrets (value attributes of secret fields dropped, the text of secret textareas and editable
 * hosts replaced by REDACTED), for HTML reads. `reason` is secretReason.
 */
export function secretFreeCopy(el: Element, reason: (el: Element) => string | null): Element {
  const originals: Element[] = [el, ...Array.from(el.querySelectorAll('*'))];
  let copy: Element | null = null;
  let copies: Element[] = [];
  for (let i = 0; i < originals.length; i++) {
    const x = originals[i]!;
    const tag = x.localName;
    const control = tag === 'input' || tag === 'textarea' || tag === 'select';
    const host = x.hasAttribute('contenteditable') && (x as HTMLElement).isContentEditable === true;
    if (!control && !host) continue;
    if (!reason(x)) continue;
    if (!copy) {
      copy = el.cloneNode(true) as Element;
      copies = [copy, ...Array.from(copy.querySelectorAll('*'))];
    }
    const c = copies[i]!;
    if (tag === 'input') c.removeAttribute('value');
    else if (tag === 'select')
      for (const o of Array.from(c.querySelectorAll('option'))) o.removeAttribute('selected');
    else if ((x.textContent || '').trim()) c.textContent = '[redacted]';
  }
  return copy ?? el;
}

// ---------------------------------------------------------------- URL parameters (Node side)

/** Words that make a parameter (URL query, form field, JSON key) secret wherever they stand in its name. */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'passcode',
  'secret',
  'token',
  'auth',
  'authorization',
  'session',
  'sessionid',
  'sessid',
  'sid',
  'sig',
  'signature',
  'otp',
  'totp',
  'credential',
  'credentials',
  'jwt',
  'apikey',
  'cvc',
  'cvv',
  'csc',
]);
/** Words that are secret alone or as the last word of a name ("code", "api_key"), not inside one ("keyword"). */
const SECRET_LAST_WORDS = new Set(['code', 'key']);

/**
 * Whether a parameter name carries a secret: split into words (separators and camelCase), any word
 * of SECRET_WORDS, or "code" / "key" as the last word ("code", "auth_code", "api_key", "X-Amz-Signature";
 * not "keyword", "author", "authuser", "barcode"). Names like "country_code" are masked too: a
 * masked harmless value costs less than a leaked code.
 */
export function isSecretParam(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.length === 0) return false;
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  return SECRET_LAST_WORDS.has(words[words.length - 1]!);
}

/** `a=b&c=d` with the values of secret names (or of `extraNames`) replaced; separators kept as they are. */
export function maskParams(params: string, extraNames?: ReadonlySet<string>): string {
  return params.replace(/(^|[&;])([^&;=]*)=([^&;]*)/g, (all, sep: string, rawName: string, value: string) => {
    if (!value) return all;
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {}
    return isSecretParam(name) || extraNames?.has(name) ? `${sep}${rawName}=${REDACTED}` : all;
  });
}

/**
 * A URL with the values of secret query parameters (and of fragment parameters, as OAuth puts
 * tokens there) and the userinfo password replaced by REDACTED. Only the masked parts change: the
 * rest of the URL stays byte for byte. Not a URL: returned unchanged.
 */
export function maskUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) return url;
  const [, scheme, authorityRaw, path, query, fragment] = m;
  let authority = authorityRaw!;
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(':');
    if (colon !== -1 && colon < userinfo.length - 1)
      authority = `${userinfo.slice(0, colon)}:${REDACTED}${authority.slice(at)}`;
  }
  const q = query ? `?${maskParams(query.slice(1))}` : '';
  const f = fragment && fragment.includes('=') ? `#${maskParams(fragment.slice(1))}` : (fragment ?? '');
  return `${scheme}${authority}${path}${q}${f}`;
}

/** Every absolute URL inside `text` (logs, trace entries) masked with maskUrl. */
export function maskUrlsIn(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\\`]+/gi, (u) => maskUrl(u));
}
