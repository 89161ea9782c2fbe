/**
 * The in-page half of the snapshot engine. Bundled by scripts/build-injected.mjs
 * into a self-contained string (bundle.generated.ts) and installed once per
 * document as globalThis[Symbol.for('tabwright.snapshot')].
 *
 * It walks the flat tree (open and closed shadow roots, slots, aria-owns),
 * computes roles, accessible names, live values and states, redacts secrets,
 * collapses generic wrappers and hands back a compact tree. Elements are
 * identified by per-document local ids kept in a WeakMap, never by position.
 */

import { isElement, isShadowRoot, isSVGElement } from '../../engine/semantics/node-kinds.js';
import { collectSecrets, REDACTED, secretReason } from '../../engine/semantics/secrets.js';
import { INTERACTIVE_ROLES } from '../model.js';
import type {
  NestedWalk,
  PageCall,
  RawElement,
  RawStates,
  WalkError,
  WalkOptions,
  WalkResult,
} from './types.js';

type Out = (RawElement | string)[];

/** Inside an svg, what makes it more than one image: focusable, linked or roled parts. */
const SVG_WIDGETS =
  '[tabindex], a[href], [role]:not([role="img"], [role="image"], [role="none"], [role="presentation"], [role="graphics-symbol"])';

const SKIP_TAGS = new Set([
  // SVG resources and metadata render nothing by themselves.
  'defs',
  'symbol',
  'clipPath',
  'mask',
  'linearGradient',
  'radialGradient',
  'pattern',
  'filter',
  'marker',
  'metadata',
  'desc',
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'meta',
  'link',
  'title',
  'base',
  'datalist',
  'param',
  'source',
  'track',
]);

// One list for the page script and the engine's model (bundled in by esbuild).
export { INTERACTIVE_ROLES };

const NAME_FROM_CONTENT = new Set([
  'button',
  'cell',
  'checkbox',
  'columnheader',
  'gridcell',
  'heading',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'rowheader',
  'switch',
  'tab',
  'tooltip',
  'treeitem',
  'legend',
  'caption',
  'code',
  'term',
]);

/** Roles whose children add nothing once the name is known (when no interactive descendant). */
const LEAF_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'heading',
  'img',
  'textbox',
  'searchbox',
  'spinbutton',
  'slider',
  'progressbar',
  'meter',
  'separator',
]);

const VALID_ROLES = new Set([
  ...INTERACTIVE_ROLES,
  'alert',
  'alertdialog',
  'application',
  'article',
  'banner',
  'blockquote',
  'caption',
  'cell',
  'code',
  'columnheader',
  'complementary',
  'contentinfo',
  'definition',
  'deletion',
  'dialog',
  'directory',
  'document',
  'emphasis',
  'feed',
  'figure',
  'form',
  'generic',
  'grid',
  'gridcell',
  'group',
  'heading',
  'img',
  'image',
  'insertion',
  'list',
  'listitem',
  'log',
  'main',
  'mark',
  'marquee',
  'math',
  'menu',
  'menubar',
  'meter',
  'navigation',
  'none',
  'note',
  'paragraph',
  'presentation',
  'progressbar',
  'radiogroup',
  'region',
  'row',
  'rowgroup',
  'rowheader',
  'scrollbar',
  'search',
  'separator',
  'status',
  'strong',
  'subscript',
  'superscript',
  'suggestion',
  'comment',
  'graphics-document',
  'graphics-object',
  'graphics-symbol',
  'table',
  'tablist',
  'tabpanel',
  'term',
  'time',
  'timer',
  'toolbar',
  'tooltip',
  'tree',
  'treegrid',
]);

/** Collapsed roles the model still holds (SnapshotNode.inline), as Chromium's tree has them. */
const INLINE_SEMANTIC = new Set([
  'strong',
  'emphasis',
  'subscript',
  'superscript',
  'mark',
  'time',
  'deletion',
  'insertion',
  'code',
  'term',
  'definition',
  'caption',
]);

/** Roles that are only wrappers for the agent: their children are hoisted. */
const COLLAPSE_ROLES = new Set([
  'generic',
  'none',
  'presentation',
  'rowgroup',
  ...INLINE_SEMANTIC,
  'legend',
  'image',
]);

const INPUT_ROLE: Record<string, string> = {
  button: 'button',
  submit: 'button',
  reset: 'button',
  image: 'button',
  checkbox: 'checkbox',
  radio: 'radio',
  range: 'slider',
  number: 'spinbutton',
  search: 'searchbox',
  email: 'textbox',
  tel: 'textbox',
  text: 'textbox',
  url: 'textbox',
  password: 'textbox',
  date: 'textbox',
  'datetime-local': 'textbox',
  month: 'textbox',
  week: 'textbox',
  time: 'textbox',
  color: 'button',
  file: 'button',
};

// ---------------------------------------------------------------- identity

const ids = new WeakMap<Element, number>();
const byId = new Map<number, WeakRef<Element>>();
let nextId = 1;
const docId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

function idOf(el: Element): number {
  let id = ids.get(el);
  if (id === undefined) {
    id = nextId++;
    ids.set(el, id);
    byId.set(id, new WeakRef(el));
  }
  return id;
}

function elementById(doc: string, id: number): Element | null {
  if (doc !== docId) return null;
  const el = byId.get(id)?.deref();
  if (!el?.isConnected) return null;
  return el;
}

// ---------------------------------------------------------------- shadow roots

type ClosedRegistry = ((e: Element) => ShadowRoot | undefined) | undefined;

function closedRegistry(): ClosedRegistry {
  const reg = (globalThis as unknown as Record<symbol, ClosedRegistry>)[
    Symbol.for('tabwright.closedShadowRoot')
  ];
  return typeof reg === 'function' ? reg : undefined;
}

/** The registry, looked up once per walk (null outside a walk: then every call looks it up). */
let walkRegistry: ClosedRegistry | null = null;

/** Closed roots recorded by the init script (see closed-shadow.ts), if installed. */
function closedRootOf(el: Element): ShadowRoot | null {
  const reg = walkRegistry === null ? closedRegistry() : walkRegistry;
  if (reg === undefined) return null;
  try {
    return reg(el) ?? null;
  } catch {
    return null;
  }
}

function shadowOf(el: Element): ShadowRoot | null {
  return el.shadowRoot ?? closedRootOf(el);
}

/** Children in the flat tree: shadow root content, slot assignments, light children otherwise. */
function flatChildren(node: Element | ShadowRoot | Document): NodeListOf<ChildNode> | Node[] {
  const from = flatParent(node);
  return Array.isArray(from) ? from : from.childNodes;
}

/**
 * Where the flat-tree children come from: a slot's assigned nodes, or the node whose child list
 * they are (the shadow root, or the node itself), for walking by nextSibling without a NodeList.
 */
function flatParent(node: Element | ShadowRoot | Document): Node[] | Node {
  if (isElement(node)) {
    if (node.localName === 'slot') {
      const assigned = (node as HTMLSlotElement).assignedNodes();
      if (assigned.length) return assigned;
    }
    const root = shadowOf(node);
    if (root) return root;
  }
  return node;
}

// ---------------------------------------------------------------- roles

/** aria-labelledby, or the aria-labeledby spelling Chromium honours too. */
function labelledByAttr(el: Element): string | null {
  return el.getAttribute('aria-labelledby') ?? el.getAttribute('aria-labeledby');
}

function hasExplicitName(el: Element): boolean {
  return !!(el.getAttribute('aria-label')?.trim() || labelledByAttr(el)?.trim());
}

/** An author-given name: aria-label, aria-labelledby or title (the node keeps it in the model). */
function hasAuthorName(el: Element): boolean {
  return hasExplicitName(el) || !!el.getAttribute('title')?.trim();
}

/** Global ARIA attributes (other than labels) that keep an element's implicit role under role=none. */
const GLOBAL_ARIA = [
  'aria-describedby',
  'aria-details',
  'aria-keyshortcuts',
  'aria-live',
  'aria-owns',
  'aria-roledescription',
  'aria-controls',
  'aria-errormessage',
  'aria-flowto',
  'aria-haspopup',
  'aria-busy',
  'aria-atomic',
  'aria-relevant',
];

function insideSectioning(el: Element): boolean {
  for (let p = parentElement(el); p; p = parentElement(p)) {
    const t = p.localName;
    if (t === 'article' || t === 'aside' || t === 'main' || t === 'nav' || t === 'section') return true;
    const r = p.getAttribute('role');
    if (r === 'article' || r === 'complementary' || r === 'main' || r === 'navigation' || r === 'region')
      return true;
  }
  return false;
}

function parentElement(el: Element): Element | null {
  if (el.parentElement) return el.parentElement;
  const root = el.parentNode;
  return isShadowRoot(root) ? root.host : null;
}

function focusable(el: Element): boolean {
  const ti = el.getAttribute('tabindex');
  return ti !== null && ti !== '' && Number(ti) >= 0;
}

/** Focusable at all (tabindex -1 too): a presentational role is then ignored. */
function anyTabindex(el: Element): boolean {
  const ti = el.getAttribute('tabindex');
  return ti !== null && ti.trim() !== '' && !Number.isNaN(Number(ti));
}

/** The aside's scoping (HTML-AAM): inside article, aside, nav or section it is generic unless named. */
function insideSectioningContent(el: Element): boolean {
  for (let p = parentElement(el); p; p = parentElement(p)) {
    const t = p.localName;
    if (t === 'article' || t === 'aside' || t === 'nav' || t === 'section') return true;
  }
  return false;
}

function implicitRole(el: Element): string {
  const tag = el.localName;
  switch (tag) {
    case 'a':
    case 'area':
      // An anchor with a click handler attribute is a link for Chromium too, href or not.
      return el.hasAttribute('href') ||
        el.hasAttribute('xlink:href') ||
        (tag === 'a' && el.hasAttribute('onclick'))
        ? 'link'
        : 'generic';
    case 'button':
      return 'button';
    case 'input': {
      const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
      if (type === 'hidden') return 'none';
      if (
        (type === 'text' || type === 'search' || type === 'email' || type === 'tel' || type === 'url') &&
        el.hasAttribute('list')
      )
        return 'combobox';
      return INPUT_ROLE[type] ?? 'textbox';
    }
    case 'textarea':
      return 'textbox';
    case 'select': {
      const s = el as HTMLSelectElement;
      return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
    }
    case 'option':
      return 'option';
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
      return 'heading';
    case 'img':
      // alt="" makes an image presentational unless an author name says otherwise (Chromium ignores title).
      return el.getAttribute('alt') === '' && !hasExplicitName(el) ? 'presentation' : 'img';
    case 'svg':
      return 'img';
    case 'ul':
    case 'ol':
    case 'menu':
      return 'list';
    case 'li': {
      // A list made presentational takes its items' role with it (required context).
      const r = el.parentElement?.getAttribute('role');
      return r === 'none' || r === 'presentation' ? 'generic' : 'listitem';
    }
    case 'dl':
      return 'list';
    case 'dt':
      return 'term';
    case 'dd':
      return 'definition';
    case 'table':
      return 'table';
    case 'thead':
    case 'tbody':
    case 'tfoot':
      return 'rowgroup';
    case 'tr':
      return 'row';
    case 'td': {
      const table = el.closest('table');
      const r = table?.getAttribute('role');
      return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
    }
    case 'th': {
      const scope = el.getAttribute('scope');
      if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
      if (scope === 'col' || scope === 'colgroup') return 'columnheader';
      // A th in a row that has td cells and sits first is a row header.
      const row = el.parentElement;
      if (row && el === row.firstElementChild && row.querySelector(':scope > td')) return 'rowheader';
      return 'columnheader';
    }
    case 'caption':
      return 'caption';
    case 'nav':
      return 'navigation';
    case 'main':
      return 'main';
    case 'aside':
      return insideSectioningContent(el) && !hasAuthorName(el) ? 'generic' : 'complementary';
    case 'address':
    case 'hgroup':
      return 'group';
    case 'del':
    case 's':
      return 'deletion';
    case 'ins':
      return 'insertion';
    case 'mark':
      return 'mark';
    case 'sub':
      return 'subscript';
    case 'sup':
      return 'superscript';
    case 'time':
      return 'time';
    case 'dfn':
      return 'term';
    case 'header':
      return insideSectioning(el) ? 'generic' : 'banner';
    case 'footer':
      return insideSectioning(el) ? 'generic' : 'contentinfo';
    case 'section':
      return hasAuthorName(el) ? 'region' : 'generic';
    case 'article':
      return 'article';
    case 'form':
      return 'form';
    case 'search':
      return 'search';
    case 'dialog':
      return 'dialog';
    case 'p':
      return 'paragraph';
    case 'blockquote':
      return 'blockquote';
    case 'figure':
      return 'figure';
    case 'hr':
      return 'separator';
    case 'fieldset':
    case 'details':
    case 'optgroup':
      return 'group';
    case 'summary':
      return 'button';
    case 'progress':
      return 'progressbar';
    case 'meter':
      return 'meter';
    case 'output':
      return 'status';
    case 'iframe':
    case 'frame':
      return 'iframe';
    case 'math':
      return 'math';
    case 'code':
      return 'code';
    case 'strong':
      return 'strong';
    case 'em':
      return 'emphasis';
    default:
      return 'generic';
  }
}

/** ARIA synonyms and deprecated roles, as Chromium maps them. */
const ROLE_SYNONYM: Record<string, string> = { image: 'img', directory: 'list' };

/** A treeitem needs a tree or group around it (required context); otherwise its role falls back. */
function inTreeContext(el: Element): boolean {
  for (let p = parentElement(el); p; p = parentElement(p)) {
    const r = p.getAttribute('role');
    if (r === 'tree' || r === 'group' || r === 'treegrid') return true;
    if (r && r !== 'none' && r !== 'presentation' && r !== 'generic') return false;
  }
  return false;
}

function roleOf(el: Element): string {
  const explicit = el.getAttribute('role');
  if (explicit) {
    for (const raw of explicit.trim().toLowerCase().split(/\s+/)) {
      const token = ROLE_SYNONYM[raw] ?? raw;
      if (!VALID_ROLES.has(token)) continue;
      // presentation/none is ignored on focusable elements and on elements with global ARIA
      // attributes (presentational role conflict resolution).
      if (
        (token === 'none' || token === 'presentation') &&
        (anyTabindex(el) ||
          (isNativeInteractive(el) && !(el as HTMLInputElement).disabled) ||
          hasExplicitName(el) ||
          GLOBAL_ARIA.some((a) => el.hasAttribute(a)))
      )
        break;
      // A region or form needs a name; without one the next token (or the implicit role) applies.
      if ((token === 'region' || token === 'form') && !hasAuthorName(el)) continue;
      if (token === 'treeitem' && !inTreeContext(el)) continue;
      return token;
    }
  }
  if (el.getAttribute('contenteditable') !== null && (el as HTMLElement).isContentEditable) {
    const parent = parentElement(el);
    if (!parent || !(parent as HTMLElement).isContentEditable) return 'textbox';
  }
  return implicitRole(el);
}

function isNativeInteractive(el: Element): boolean {
  const t = el.localName;
  return (
    t === 'button' ||
    t === 'input' ||
    t === 'select' ||
    t === 'textarea' ||
    (t === 'a' && el.hasAttribute('href'))
  );
}

// ---------------------------------------------------------------- secrets and values

// The one secret rule (src/engine/semantics/secrets.ts), bundled in.
function isSecret(el: Element): boolean {
  return secretReason(el) !== null;
}

/** An editable host (contenteditable) whose content is a secret: its text is its value. */
function isSecretEditable(el: Element): boolean {
  return el.hasAttribute('contenteditable') && (el as HTMLElement).isContentEditable === true && isSecret(el);
}

function selectedText(el: HTMLSelectElement): string {
  const out: string[] = [];
  for (const o of Array.from(el.selectedOptions)) out.push(norm(o.label || o.text));
  return out.join(', ');
}

/** The live value (DOM property, not attribute), redacted for secret fields. */
function liveValue(el: Element, role: string): string | undefined {
  const t = el.localName;
  let v: string | undefined;
  if (t === 'input') {
    const input = el as HTMLInputElement;
    const type = (input.type || 'text').toLowerCase();
    if (type === 'checkbox' || type === 'radio' || INPUT_ROLE[type] === 'button') return undefined;
    if (type === 'file') {
      v = Array.from(input.files ?? [])
        .map((f) => f.name)
        .join(', ');
    } else v = input.value;
  } else if (t === 'textarea') v = (el as HTMLTextAreaElement).value;
  else if (t === 'select') v = selectedText(el as HTMLSelectElement);
  else if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter') {
    v = el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow') ?? undefined;
    if (v === undefined && (t === 'progress' || t === 'meter')) v = String((el as HTMLProgressElement).value);
  } else if (role === 'combobox' || role === 'textbox' || role === 'searchbox') {
    if ((el as HTMLElement).isContentEditable) return undefined;
  }
  if (v === undefined) return undefined;
  if (isSecret(el) && v !== '') return REDACTED;
  return v;
}

// ---------------------------------------------------------------- text and names

/** An author's label: ASCII whitespace collapses, other spaces (no-break) are the author's (as in Chromium). */
function normLabel(s: string): string {
  const t = s
    .replace(/\u200b|\u200c|\u200d|\u2060|\ufeff/g, '')
    .replace(/[\t\n\f\r ]+/g, ' ')
    .replace(/^ | $/g, '');
  return t.trim() ? t : '';
}

/**
 * Anything norm would change inside a string: zero-width characters, whitespace other than a space
 * (JavaScript's \s without the space, listed: one class, so one test per character instead of one
 * per alternative), two spaces in a row. A space at either end is checked apart (charCodeAt).
 */
const NOT_NORMAL = /[\t-\r\u00a0\u1680\u2000-\u200d\u2028\u2029\u202f\u205f\u2060\u3000\ufeff]| {2}/;

function norm(s: string): string {
  // Most names and text runs are already normal: one scan instead of two replaces and a trim.
  if (s.charCodeAt(0) !== 32 && s.charCodeAt(s.length - 1) !== 32 && !NOT_NORMAL.test(s)) return s;
  return s
    .replace(/\u200b|\u200c|\u200d|\u2060|\ufeff/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const styleCache = new Map<Element, CSSStyleDeclaration>();
function styleOf(el: Element): CSSStyleDeclaration {
  let s = styleCache.get(el);
  if (!s) {
    s = getComputedStyle(el);
    styleCache.set(el, s);
  }
  return s;
}

const QUOTED = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;

/** Index of a `/` outside quotes and parentheses in a content value, or -1. */
function topLevelSlash(content: string): number {
  let quote = '';
  let depth = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '/' && depth === 0) return i;
  }
  return -1;
}

function pseudoText(el: Element, which: '::before' | '::after'): string {
  let content = getComputedStyle(el, which).content;
  if (!content || content === 'none' || content === 'normal') return '';
  // `content: … / "alt"`: the alternative text is what names and screen readers get.
  const slash = topLevelSlash(content);
  if (slash >= 0) content = content.slice(slash + 1);
  // Images (url(), image-set(), gradients) carry no text: their quoted URLs are not words.
  content = content.replace(
    /\b(?:url|image-set|-webkit-image-set|[a-z-]*gradient)\((?:[^()"']|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\([^()]*\))*\)/gi,
    '',
  );
  // Only quoted strings carry text; counters and attr() are left out.
  const parts = content.match(QUOTED);
  if (!parts) return '';
  return parts
    .map((p) =>
      p
        .slice(1, -1)
        .replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, h) => String.fromCodePoint(Number.parseInt(h, 16)))
        .replace(/\\(.)/g, '$1'),
    )
    .join('');
}

/**
 * Elements that may have ::before/::after text: those matched by a stylesheet
 * rule with a ::before/::after selector and a string (or variable) content.
 * null when a stylesheet cannot be read (cross-origin, and not known to have failed to load):
 * then every element is checked.
 */
let pseudoSet: Set<Element> | null = null;

function collectPseudoSelectors(rules: CSSRuleList, out: string[]): boolean {
  for (const rule of Array.from(rules)) {
    // By type, not instanceof: a sheet's rules may come from another realm's <style> or <link>.
    if (rule.type === CSSRule.STYLE_RULE) {
      const style = rule as CSSStyleRule & { cssRules?: CSSRuleList };
      if (style.cssRules?.length) return false; // nested CSS
      const sel = style.selectorText;
      if (!/::?(before|after)/i.test(sel)) continue;
      const content = style.style.getPropertyValue('content');
      if (!content || !/["']|var\(|attr\(/.test(content)) continue;
      for (const part of sel.split(',')) {
        if (!/::?(before|after)/i.test(part)) continue;
        const base = part.replace(/::?(before|after)/gi, '').trim();
        out.push(base === '' || /[>+~]$/.test(base) ? `${base}*` : base);
      }
    } else if (rule.type === CSSRule.IMPORT_RULE) {
      const sheet = (rule as CSSImportRule).styleSheet;
      if (!sheet) continue;
      if (!collectPseudoSelectors(sheet.cssRules, out)) return false;
    } else if ('cssRules' in rule) {
      if (!collectPseudoSelectors((rule as CSSGroupingRule).cssRules, out)) return false;
    }
  }
  return true;
}

/** The init script's record of stylesheet links that failed to load (failed-sheets.ts), if it ran here. */
function failedSheetCheck(): ((el: Element) => boolean) | undefined {
  return (globalThis as unknown as Record<symbol, ((el: Element) => boolean) | undefined>)[
    Symbol.for('tabwright.failedStylesheet')
  ];
}

function computePseudoSet(failedUrls: string[] | undefined): Set<Element> | null {
  const sels: string[] = [];
  // Both records must agree: the link fired `error` (init script) and its own request failed (the
  // engine's log). Chromium also fires `error` on a sheet that loaded when one of its @imports failed,
  // and that sheet's rules still apply.
  const failedHrefs = failedUrls?.length ? new Set(failedUrls) : null;
  const failed = failedHrefs ? failedSheetCheck() : undefined;
  try {
    for (const sheet of Array.from(document.styleSheets)) {
      let rules: CSSRuleList;
      try {
        rules = sheet.cssRules;
      } catch (e) {
        // Unreadable (cross-origin): a sheet that never loaded has no rules, any other may have some.
        const owner = sheet.ownerNode;
        if (failed && isElement(owner) && failed(owner) && failedHrefs!.has(sheet.href ?? '')) continue;
        throw e;
      }
      if (!collectPseudoSelectors(rules, sels)) return null;
    }
    for (const sheet of Array.from(document.adoptedStyleSheets ?? [])) {
      if (!collectPseudoSelectors(sheet.cssRules, sels)) return null;
    }
  } catch {
    return null;
  }
  const set = new Set<Element>();
  if (!sels.length) return set;
  const add = (sel: string) => {
    for (const el of Array.from(document.querySelectorAll(sel))) set.add(el);
  };
  try {
    add(sels.join(','));
  } catch {
    for (const sel of sels) {
      try {
        add(sel);
      } catch {
        return null;
      }
    }
  }
  return set;
}

const INLINE_DISPLAY = /^(inline|contents|ruby)/;

function isBlock(style: CSSStyleDeclaration): boolean {
  return !INLINE_DISPLAY.test(style.display);
}

/** Roles whose content Chromium leaves out of an ancestor's name from content (measured on 156). */
const NOT_IN_CONTENT_NAMES = new Set([
  'alert',
  'alertdialog',
  'application',
  'article',
  'banner',
  'blockquote',
  'complementary',
  'contentinfo',
  'dialog',
  'document',
  'feed',
  'figure',
  'form',
  'grid',
  'group',
  'img',
  'listbox',
  'log',
  'main',
  'marquee',
  'menu',
  'menubar',
  'navigation',
  'note',
  'radiogroup',
  'region',
  'search',
  'status',
  'table',
  'tabpanel',
  'timer',
  'toolbar',
  'tree',
  'treegrid',
]);

/** How deep aria-labelledby references are being followed from inside a name from content. */
let labelDepth = 0;

/** Text of a subtree for name-from-content (accname 2F, approximated). */
function contentText(root: Element, visited: Set<Element>, fromLabel: boolean, hiddenOk = false): string {
  const parts: string[] = [];
  const rootRole = roleOf(root);
  const visit = (node: Node) => {
    const type = node.nodeType;
    if (type === 3) {
      parts.push(transformed(node));
      return;
    }
    // nodeType, not instanceof: an element made in another realm is an element too.
    if (type !== 1) {
      for (const c of Array.from(flatChildren(node as ShadowRoot))) visit(c);
      return;
    }
    const el = node as Element;
    if (visited.has(el)) return;
    visited.add(el);
    const tag = el.localName;
    if (SKIP_TAGS.has(tag)) return;
    const style = styleOf(el);
    if (style.display === 'none') return;
    if (el !== root) {
      if (!hiddenOk && style.visibility !== 'visible' && !hasVisibleChild(el)) return;
      if (!hiddenOk && el.getAttribute('aria-hidden') === 'true') return;
      // Ruby annotations are pronunciation, not part of the name (Chromium).
      if (tag === 'rt' || tag === 'rp') return;
    }
    const block = isBlock(style);
    if (block) parts.push(' ');
    if (el !== root) {
      const role = roleOf(el);
      // A nested tree or menu is not part of its item's name.
      if (
        (rootRole === 'treeitem' && (role === 'group' || role === 'tree')) ||
        ((rootRole === 'menuitem' || rootRole === 'menuitemcheckbox' || rootRole === 'menuitemradio') &&
          (role === 'menu' || role === 'menubar'))
      )
        return;
      const embedded =
        (role === 'textbox' || role === 'searchbox') && !(el as HTMLElement).isContentEditable
          ? true
          : role === 'combobox' || role === 'listbox' || role === 'slider' || role === 'spinbutton';
      // A descendant labelled by others is named by them (accname 2B), a few levels deep at most.
      const ids = embedded ? null : labelledByAttr(el);
      if (ids?.trim() && labelDepth < 3) {
        labelDepth++;
        try {
          const t = textOfIds(el, ids, visited);
          if (t) {
            parts.push(' ', t, ' ');
            return;
          }
        } finally {
          labelDepth--;
        }
      }
      // An embedded control gives its value, never its aria-label; a slot's aria-label is not used.
      const label = embedded || tag === 'slot' ? '' : el.getAttribute('aria-label')?.trim();
      if (label) {
        // Chromium keeps embedded names apart from neighbouring text.
        parts.push(' ', label, ' ');
        return;
      }
      // Containers that are not named from content add nothing to another element's name
      // (Chromium: a link around an <article> or <figure> is not named by their text).
      if (NOT_IN_CONTENT_NAMES.has(role) && tag !== 'img' && tag !== 'svg') return;
      // Embedded controls contribute their value.
      if (role === 'textbox' || role === 'searchbox') {
        if (isSecretEditable(el)) {
          if ((el.textContent ?? '').trim()) parts.push(' ', REDACTED, ' ');
          return;
        }
        if ((el as HTMLElement).isContentEditable) {
          /* fall through to content */
        } else {
          parts.push(fromLabel ? (liveValue(el, role) ?? '') : (liveValue(el, role) ?? ''));
          if (block) parts.push(' ');
          return;
        }
      }
      if (role === 'combobox' || role === 'listbox') {
        parts.push(liveValue(el, role) ?? '');
        return;
      }
      if (role === 'slider' || role === 'spinbutton') {
        parts.push(liveValue(el, role) ?? '');
        return;
      }
    }
    if (tag === 'img' || tag === 'area' || (tag === 'input' && (el as HTMLInputElement).type === 'image')) {
      parts.push(' ', el.getAttribute('alt') ?? el.getAttribute('title') ?? '', ' ');
      return;
    }
    if (tag === 'svg') {
      parts.push(' ', svgTitle(el), ' ');
      return;
    }
    if (tag === 'input') {
      const type = (el as HTMLInputElement).type;
      if (INPUT_ROLE[type] === 'button' && type !== 'file') parts.push((el as HTMLInputElement).value);
      return;
    }
    if (tag === 'br') {
      parts.push(' ');
      return;
    }
    const pseudo = pseudoSet === null || pseudoSet.has(el) || el.getRootNode() !== document;
    if (pseudo) parts.push(pseudoText(el, '::before'));
    const from = flatParent(el);
    if (Array.isArray(from)) for (const c of from) visit(c);
    else for (let c = from.firstChild; c; c = c.nextSibling) visit(c);
    // aria-owns: owned elements follow the owner's own children.
    const owns = el.getAttribute('aria-owns');
    if (owns)
      for (const id of owns.trim().split(/\s+/)) {
        const owned = id ? (el.getRootNode() as Document | ShadowRoot).getElementById?.(id) : null;
        // Never an element hidden from everyone (or inside such an element).
        if (owned && !owned.contains(el) && owned.checkVisibility?.() !== false) visit(owned);
      }
    if (pseudo) parts.push(pseudoText(el, '::after'));
    if (block) parts.push(' ');
  };
  visit(root);
  return norm(parts.join(''));
}

const NON_SPACE = /\S/;
/** Each parent element's text-transform, read once per walk (its text nodes share it). */
const transformCache = new Map<Element, string>();
let inWalk = false;

/** A text node's text as rendered: CSS text-transform applied (as Chromium does for names and innerText). */
function transformed(node: Node): string {
  const text = node.nodeValue ?? '';
  // Whitespace has no case: most text nodes (between tags) need no style read.
  if (!text || !NON_SPACE.test(text)) return text;
  const parent = node.parentElement;
  if (!parent) return text;
  // Cached only inside a walk: between walks the page may restyle.
  let tt = inWalk ? transformCache.get(parent) : undefined;
  if (tt === undefined) {
    tt = styleOf(parent).textTransform;
    if (inWalk) transformCache.set(parent, tt);
  }
  if (tt === 'none' || !tt) return text;
  if (tt === 'uppercase') return text.toUpperCase();
  if (tt === 'lowercase') return text.toLowerCase();
  if (tt === 'capitalize')
    return text.replace(/(^|[\s\-\u2014(["'])(\p{Ll})/gu, (_, a: string, b: string) => a + b.toUpperCase());
  return text;
}

/** An svg's <title>, the <title> of the symbol a <use> child points at, or its title attribute. */
function svgTitle(svg: Element): string {
  const own = svg.querySelector(':scope > title');
  if (own?.textContent?.trim()) return norm(own.textContent);
  const use = svg.querySelector(':scope > use');
  const href = use?.getAttribute('href') ?? use?.getAttribute('xlink:href');
  if (href?.startsWith('#')) {
    const target = (svg.getRootNode() as Document | ShadowRoot).getElementById?.(href.slice(1));
    const t = target?.querySelector(':scope > title');
    if (t?.textContent?.trim()) return norm(t.textContent);
  }
  // Its tooltip last (Chromium names a link around <svg title="Email"> "Email").
  return norm(svg.getAttribute('title') ?? '');
}

function hasVisibleChild(el: Element): boolean {
  for (const c of Array.from(el.children)) {
    if (styleOf(c).visibility === 'visible') return true;
    if (hasVisibleChild(c)) return true;
  }
  return false;
}

/** The text of the elements an id list references; `visited` is shared within one name's recursion. */
function textOfIds(el: Element, v: string | null, visited?: Set<Element>): string | undefined {
  if (!v) return undefined;
  const root = el.getRootNode() as Document | ShadowRoot;
  const out: string[] = [];
  for (const id of v.trim().split(/\s+/)) {
    const ref = root.getElementById?.(id) ?? document.getElementById(id);
    if (!ref) continue;
    const label = ref.getAttribute('aria-label')?.trim();
    if (visited?.has(ref)) continue;
    out.push(label || contentTextHidden(ref, visited));
  }
  const s = norm(out.join(' '));
  return s || undefined;
}

/** aria-labelledby targets count even when hidden (then their whole subtree does). */
function contentTextHidden(el: Element, visited = new Set<Element>()): string {
  const style = styleOf(el);
  if (style.display === 'none' || style.visibility !== 'visible') return norm(el.textContent ?? '');
  return contentText(el, visited, false, el.closest('[aria-hidden="true"]') !== null);
}

/** A text field's or a form control's name without an author one: its labels, title, then placeholder. */
function fieldName(el: Element): string {
  const l = labelsText(el);
  if (l) return l;
  const title = el.getAttribute('title');
  if (title?.trim()) return norm(title);
  // A shown <label> that says nothing still labels the field: Chromium then names it "", not
  // by its placeholder.
  if (hasShownLabel(el)) return '';
  return norm(el.getAttribute('placeholder') ?? '');
}

/** Has a <label> that is not hidden (see labelsText). */
function hasShownLabel(el: Element): boolean {
  return Array.from((el as HTMLInputElement).labels ?? []).some((l) => !labelHidden(l));
}

function labelHidden(l: Element): boolean {
  const st = styleOf(l);
  return st.display === 'none' || st.visibility !== 'visible' || l.closest('[aria-hidden="true"]') !== null;
}

function labelsText(el: Element): string | undefined {
  const labels = (el as HTMLInputElement).labels;
  if (!labels || labels.length === 0) return undefined;
  const out: string[] = [];
  for (const l of Array.from(labels)) {
    // A hidden label names nothing (display:none, hidden, visibility:hidden/collapse, aria-hidden):
    // HTML-AAM and Chromium; the accname suite expects the opposite, we follow Chromium.
    if (labelHidden(l)) continue;
    const visited = new Set<Element>([el]);
    out.push(contentText(l, visited, true));
  }
  const s = norm(out.join(' '));
  return s || undefined;
}

function accName(el: Element, role: string): string {
  const byIds = textOfIds(el, labelledByAttr(el));
  if (byIds) return byIds;
  const label = el.getAttribute('aria-label');
  if (label?.trim()) return normLabel(label);
  const tag = el.localName;
  if (tag === 'input') {
    const input = el as HTMLInputElement;
    const type = (input.type || 'text').toLowerCase();
    if (type === 'submit' || type === 'reset' || type === 'button' || type === 'image') {
      // A <label> names a button-like input before its own caption (HTML-AAM, Chromium).
      const l = labelsText(el);
      if (l) return l;
    }
    if (type === 'submit' || type === 'reset' || type === 'button') {
      const v = input.getAttribute('value');
      // An explicit value, even empty, is the caption (Chromium); the default label only without one.
      if (v !== null) return norm(v);
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
      return labelsText(el) ?? norm(el.getAttribute('title') ?? '');
    }
    if (type === 'image') {
      for (const a of ['alt', 'value', 'title']) {
        const v = el.getAttribute(a);
        if (v?.trim()) return norm(v);
      }
      // An explicit empty alt is the name; otherwise the button's default caption.
      return el.getAttribute('alt') === '' ? '' : 'Submit';
    }
    return fieldName(el);
  }
  if (tag === 'textarea' || tag === 'select' || tag === 'meter' || tag === 'progress' || tag === 'output') {
    return fieldName(el);
  }
  if (tag === 'img' || tag === 'area') {
    const alt = el.getAttribute('alt');
    if (alt?.trim()) return norm(alt);
    return norm(el.getAttribute('title') ?? '');
  }
  if (tag === 'svg') {
    const t = svgTitle(el);
    if (t) return t;
  } else if (isSVGElement(el)) {
    // SVG-AAM: an element's <title> child names it.
    const t = el.querySelector(':scope > title')?.textContent;
    if (t?.trim()) return norm(t);
  }
  if (tag === 'button') {
    const l = labelsText(el);
    if (l) return l;
  }
  if (tag === 'optgroup') {
    const l = el.getAttribute('label');
    if (l?.trim()) return norm(l);
  }
  if (tag === 'fieldset') {
    const legend = el.querySelector(':scope > legend');
    if (legend) return contentText(legend, new Set(), false);
  }
  if (tag === 'table') {
    const cap = (el as HTMLTableElement).caption;
    if (cap) return contentText(cap, new Set(), false);
  }
  if (tag === 'figure') {
    const cap = el.querySelector(':scope > figcaption');
    if (cap) return contentText(cap, new Set(), false);
  }
  if (NAME_FROM_CONTENT.has(role)) {
    const t = contentText(el, new Set(), false);
    if (t) return t;
  }
  const title = el.getAttribute('title');
  if (title?.trim()) return norm(title);
  if (role === 'textbox' || role === 'searchbox') {
    const ph = el.getAttribute('placeholder') ?? el.getAttribute('aria-placeholder');
    if (ph) return norm(ph);
  }
  return '';
}

// ---------------------------------------------------------------- states

function ariaBool(el: Element, attr: string): boolean | 'mixed' | undefined {
  const v = el.getAttribute(attr);
  if (v === null) return undefined;
  if (v === 'mixed') return 'mixed';
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

function statesOf(el: Element, role: string, focusedEl: Element | null): RawStates | undefined {
  const st: RawStates = {};
  const tag = el.localName;
  if (
    role === 'checkbox' ||
    role === 'radio' ||
    role === 'switch' ||
    role === 'menuitemcheckbox' ||
    role === 'menuitemradio'
  ) {
    if (
      tag === 'input' &&
      ((el as HTMLInputElement).type === 'checkbox' || (el as HTMLInputElement).type === 'radio')
    ) {
      const input = el as HTMLInputElement;
      st.checked = input.indeterminate ? 'mixed' : input.checked;
    } else {
      const c = ariaBool(el, 'aria-checked');
      st.checked = c ?? false;
    }
  }
  if (role === 'option' || role === 'tab' || role === 'row' || role === 'gridcell' || role === 'treeitem') {
    if (tag === 'option') st.selected = (el as HTMLOptionElement).selected;
    else {
      const s = ariaBool(el, 'aria-selected');
      if (s !== undefined && s !== 'mixed') st.selected = s;
    }
  }
  const exp = ariaBool(el, 'aria-expanded');
  if (exp !== undefined && exp !== 'mixed') st.expanded = exp;
  else if (tag === 'summary' && el.parentElement?.localName === 'details')
    st.expanded = (el.parentElement as HTMLDetailsElement).open;
  const pressed = ariaBool(el, 'aria-pressed');
  if (pressed !== undefined && role === 'button') st.pressed = pressed;
  const control =
    INTERACTIVE_ROLES.has(role) ||
    tag === 'input' ||
    tag === 'select' ||
    tag === 'textarea' ||
    tag === 'button' ||
    tag === 'fieldset' ||
    tag === 'label' ||
    el.hasAttribute('aria-disabled');
  if (control) {
    if (isDisabled(el)) st.disabled = true;
    if ((el as HTMLInputElement).readOnly === true || el.getAttribute('aria-readonly') === 'true')
      st.readonly = true;
    if ((el as HTMLInputElement).required === true || el.getAttribute('aria-required') === 'true')
      st.required = true;
    if (el.getAttribute('aria-invalid') === 'true' || safeMatches(el, ':user-invalid')) st.invalid = true;
  }
  if (focusedEl === el) st.focused = true;
  if (role === 'heading') {
    const lvl = Number(el.getAttribute('aria-level') ?? (/^h[1-6]$/.test(tag) ? tag.slice(1) : '2'));
    if (lvl > 0) st.level = lvl;
  } else if (role === 'treeitem' || role === 'listitem' || role === 'row') {
    const lvl = el.getAttribute('aria-level');
    if (lvl) st.level = Number(lvl);
  }
  for (const _ in st) return st;
  return undefined;
}

function safeMatches(el: Element, sel: string): boolean {
  try {
    return el.matches(sel);
  } catch {
    return false;
  }
}

function isDisabled(el: Element): boolean {
  if (safeMatches(el, ':disabled')) return true;
  return el.closest('[aria-disabled="true"]') !== null;
}

function deepActiveElement(): Element | null {
  let a: Element | null = document.activeElement;
  while (a) {
    const root = shadowOf(a);
    const inner = root?.activeElement;
    if (!inner) break;
    a = inner;
  }
  return a === document.body ? null : a;
}

// ---------------------------------------------------------------- occlusion

interface Modal {
  el: Element;
}

function findModal(): Modal | null {
  for (const d of Array.from(document.querySelectorAll('dialog[open]'))) {
    if (safeMatches(d, ':modal')) return { el: d };
  }
  for (const d of Array.from(document.querySelectorAll('[aria-modal="true"]'))) {
    const s = styleOf(d);
    if (s.display !== 'none' && s.visibility === 'visible' && d.getBoundingClientRect().width > 0)
      return { el: d };
  }
  return null;
}

function composedContains(container: Element, node: Element): boolean {
  for (let n: Element | null = node; n; n = parentElement(n)) if (n === container) return true;
  return false;
}

function deepElementFromPoint(x: number, y: number): Element | null {
  let hit = document.elementFromPoint(x, y);
  while (hit) {
    const root = shadowOf(hit);
    if (!root) break;
    const inner = root.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

function covered(el: Element, rect: DOMRect, modal: Modal | null): boolean {
  if (el.closest('[inert]')) return true;
  if (modal && !composedContains(modal.el, el)) return true;
  const cx = rect.left + rect.width / 2;
  const cy = rect.top + rect.height / 2;
  if (cx < 0 || cy < 0 || cx >= innerWidth || cy >= innerHeight) return false;
  const hit = deepElementFromPoint(cx, cy);
  if (!hit) return false;
  // Within one tree (the usual hit: the element or a child of it) the native check answers.
  if (el.contains(hit) || hit.contains(el)) return false;
  if (composedContains(el, hit) || composedContains(hit, el)) return false;
  const labels = (el as HTMLInputElement).labels;
  if (labels) for (const l of Array.from(labels)) if (composedContains(l, hit)) return false;
  return true;
}

// ---------------------------------------------------------------- selector hints

function cssEscape(s: string): string {
  return typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(s) : s.replace(/[^a-zA-Z0-9_-]/g, '\\$&');
}

function selectorHint(el: Element): string {
  const tag = el.localName;
  const id = el.getAttribute('id');
  if (id && /^[A-Za-z][\w-]*$/.test(id)) return `#${id}`;
  const name = el.getAttribute('name');
  if (name) return `${tag}[name="${name.replace(/"/g, '\\"')}"]`;
  const testId = el.getAttribute('data-testid');
  if (testId) return `[data-testid="${testId.replace(/"/g, '\\"')}"]`;
  const aria = el.getAttribute('aria-label');
  if (aria && aria.length < 60) return `${tag}[aria-label="${aria.replace(/"/g, '\\"')}"]`;
  const cls = el.classList[0];
  if (cls) return `${tag}.${cssEscape(cls)}`;
  return tag;
}

// ---------------------------------------------------------------- the walk

interface Ctx {
  opts: WalkOptions;
  focused: Element | null;
  modal: Modal | null;
  owned: Set<Element>;
  owners: Map<Element, Element[]>;
  winTop: number;
  winBottom: number;
  outside: number;
  count: number;
  /** Inline semantic elements collapsed into text, waiting for the nearest node that keeps them. */
  inl: RawElement[];
  /** Ids of iframe elements whose (same-origin) document is blank. */
  blankFrames: number[];
}

/**
 * The frame's document, when this document may read it (same origin: blank and srcdoc frames,
 * blocked loads that kept their initial document), shows nothing: the engine's blank probe, here.
 */
function frameDocumentBlank(el: Element): boolean {
  try {
    const d = (el as HTMLIFrameElement).contentDocument;
    if (!d) return false;
    const b = d.body;
    return !b || (b.childElementCount === 0 && !(b.textContent || '').trim());
  } catch {
    return false;
  }
}

interface Inherited {
  /**
   * The computed style of the element whose children these are (null: none to compare with). Its
   * cursor is read only when a child's own cursor is a pointer: most elements never need it.
   */
  parentStyle: CSSStyleDeclaration | null;
  inInteractive: boolean;
  visible: boolean;
  /** Inside a shadow tree (stylesheets there are not scanned for ::before/::after). */
  shadow?: boolean;
}

/**
 * The DOM attributes the caller asked for (WalkOptions.attrs: a door's own list, e.g. the HTTP
 * door's element lines); `value` is reported only for button-like inputs (their label), never for
 * fields, whose values come from the live property and are redacted for secrets.
 */
function attrsOf(el: Element, names: readonly string[]): Record<string, string> | undefined {
  let attrs: Record<string, string> | undefined;
  for (const a of names) {
    if (a === 'value') continue;
    const v = el.getAttribute(a);
    if (v === null) continue;
    if (!attrs) attrs = {};
    attrs[a] = v;
  }
  if (names.includes('value') && el.localName === 'input' && el.hasAttribute('value') && !isSecret(el)) {
    const type = ((el as HTMLInputElement).type || '').toLowerCase();
    if (INPUT_ROLE[type] === 'button') {
      if (!attrs) attrs = {};
      attrs.value = el.getAttribute('value') ?? '';
    }
  }
  return attrs;
}

function pushText(out: Out, s: string): void {
  if (!s) return;
  const last = out.length - 1;
  if (last >= 0 && typeof out[last] === 'string') out[last] += s;
  else out.push(s);
}

function walkChild(child: Node, out: Out, ctx: Ctx, inh: Inherited): void {
  // nodeType (read once), not instanceof: elements made in another realm (an ad's iframe, moved
  // here) are walked too.
  const type = child.nodeType;
  if (type === 3) {
    if (inh.visible) pushText(out, transformed(child));
  } else if (type === 1) {
    if (!ctx.owned.has(child as Element)) visit(child as Element, out, ctx, inh);
  }
}

function walkChildren(parent: Element | ShadowRoot | Document, out: Out, ctx: Ctx, inh: Inherited): void {
  // Not copied: nothing in the walk changes the DOM; sibling links are cheaper than a NodeList.
  const from = flatParent(parent);
  if (Array.isArray(from)) for (const child of from) walkChild(child, out, ctx, inh);
  else for (let c = from.firstChild; c; c = c.nextSibling) walkChild(c, out, ctx, inh);
  // Most pages own nothing (aria-owns): no lookup per element then.
  if (ctx.owners.size && isElement(parent)) {
    const owned = ctx.owners.get(parent);
    if (owned) for (const o of owned) visit(o, out, ctx, inh);
  }
}

/** Merges text runs, normalizes whitespace and drops empty runs. */
function finish(out: Out): Out {
  const final: Out = [];
  let run: string | null = null;
  for (const item of out) {
    if (typeof item === 'string') run = run === null ? item : run + item;
    else {
      if (run !== null) {
        const t = norm(run);
        if (t) final.push(t);
        run = null;
      }
      final.push(item);
    }
  }
  if (run !== null) {
    const t = norm(run);
    if (t) final.push(t);
  }
  return final;
}

function visit(el: Element, out: Out, ctx: Ctx, inh: Inherited): void {
  const tag = el.localName;
  if (SKIP_TAGS.has(tag)) return;
  if (tag === 'input' && (el as HTMLInputElement).type === 'hidden') return;
  const style = styleOf(el);
  // Each computed-style property read builds its string anew: read each once.
  const display = style.display;
  if (display === 'none') return;
  const visible = style.visibility === 'visible';
  const block = !INLINE_DISPLAY.test(display);
  let rectCache: DOMRect | null = null;
  const rect = (): DOMRect => {
    if (!rectCache) rectCache = el.getBoundingClientRect();
    return rectCache;
  };
  if (
    ctx.opts.margin !== undefined &&
    (rect().width > 0 || rect().height > 0) &&
    (rect().bottom < ctx.winTop || rect().top > ctx.winBottom) &&
    style.position !== 'fixed' &&
    style.position !== 'sticky'
  ) {
    ctx.outside++;
    return;
  }
  // An svg is one image, unless it holds widgets of its own (the APG temperature slider's
  // <g role="slider">, links): then it is walked like any container (SVG-AAM).
  if (tag === 'svg' && !el.querySelector(SVG_WIDGETS)) {
    if (!visible) return;
    const name = accName(el, 'img');
    if (name || el.getAttribute('role') === 'img') {
      out.push({ id: idOf(el), role: 'img', tag, name: name || undefined });
    }
    return;
  }
  if (tag === 'br') {
    if (inh.visible) pushText(out, '\n');
    return;
  }
  ctx.count++;
  let role = roleOf(el);
  const sroot = shadowOf(el);
  const childInh: Inherited = {
    parentStyle: style,
    inInteractive: inh.inInteractive,
    visible,
  };
  if (inh.shadow || sroot) childInh.shadow = true;

  // A label standing for a hidden checkbox/radio takes its role and state.
  let promotedFrom: HTMLInputElement | null = null;
  if (tag === 'label') promotedFrom = labelPromotionTarget(el);

  // Native <option>s belong to their <select>; ARIA options (listbox, combobox suggestions) are targets.
  const interactiveRole = INTERACTIVE_ROLES.has(role) && (role !== 'option' || tag !== 'option');
  let promoted = false;
  if (
    !interactiveRole &&
    !promotedFrom &&
    !inh.inInteractive &&
    visible &&
    tag !== 'body' &&
    tag !== 'html' &&
    tag !== 'label' &&
    role !== 'iframe' &&
    // A pointer cursor of its own (not inherited from its parent) marks a clickable.
    ((style.cursor === 'pointer' && inh.parentStyle?.cursor !== 'pointer') ||
      el.hasAttribute('onclick') ||
      (focusable(el) && role !== 'dialog' && role !== 'tabpanel' && role !== 'main' && role !== 'region')) &&
    rect().width > 0 &&
    rect().height > 0
  ) {
    promoted = true;
  }
  const isInteractive = interactiveRole || promoted || !!promotedFrom;
  if (isInteractive) childInh.inInteractive = true;

  const maybePseudo = visible && (pseudoSet === null || inh.shadow || pseudoSet.has(el));
  const before = maybePseudo ? pseudoText(el, '::before') : '';
  const after = maybePseudo ? pseudoText(el, '::after') : '';

  const kids: Out = [];
  const inlMark = ctx.inl.length;
  if (before) pushText(kids, before);
  if (tag === 'details' && !(el as HTMLDetailsElement).open) {
    const summary = el.querySelector(':scope > summary');
    if (summary) visit(summary, kids, ctx, childInh);
  } else if (tag === 'textarea' || tag === 'input') {
    // Form controls show their value, not their DOM children.
  } else if (isSecretEditable(el)) {
    // A private editable host: its content is its value, and secret.
  } else if (tag === 'select') {
    walkOptions(el as HTMLSelectElement, kids, ctx);
  } else if (tag === 'iframe' || tag === 'frame' || tag === 'caption') {
    // Frames: the engine splices their content in. Captions: already the table's name.
  } else if (tag === 'label' && !promotedFrom && (el as HTMLLabelElement).control) {
    // The label's text is the control's name: keep only its elements (the control itself, links).
    const inner: Out = [];
    walkChildren(el, inner, ctx, childInh);
    for (const k of inner) if (typeof k !== 'string') kids.push(k);
  } else {
    walkChildren(el, kids, ctx, childInh);
  }
  if (after) pushText(kids, after);

  // Invisible elements (visibility:hidden) give way to their visible children. Wrappers collapse for
  // the agent, but one that carries an author-given name or an explicit role keeps its node (and so
  // its role and name) in the model.
  const collapse =
    !visible ||
    (!isInteractive &&
      COLLAPSE_ROLES.has(role) &&
      !(role === 'generic' && sroot) &&
      !(role !== 'none' && role !== 'presentation' && (hasAuthorName(el) || keepsExplicitRole(el, role))));
  if (collapse) {
    // The model still holds a semantic inline element (strong, code, time, …) with its role.
    if (visible && INLINE_SEMANTIC.has(role)) ctx.inl.push({ id: idOf(el), role, tag });
    // Hoist the children; block boxes keep words apart.
    if (block) pushText(out, ' ');
    for (const k of kids) {
      if (typeof k === 'string') pushText(out, k);
      else out.push(k);
    }
    if (block) pushText(out, ' ');
    return;
  }

  if (promotedFrom) role = promotedFrom.type === 'radio' ? 'radio' : 'checkbox';
  // A promoted clickable keeps a semantic role of its own (a focusable heading or rowgroup).
  const generic = role === 'generic' || role === 'none' || role === 'presentation';
  const node: RawElement = { id: idOf(el), role: promoted && generic ? 'generic' : role, tag };
  let name: string;
  if (promotedFrom || (promoted && !hasExplicitName(el))) name = contentText(el, new Set(), true);
  else if (
    !isInteractive &&
    NAME_FROM_CONTENT.has(role) &&
    !hasExplicitName(el) &&
    !el.hasAttribute('title') &&
    !el.querySelector(NAME_AFFECTING)
  )
    // Non-interactive content names (cells, headings) come from the walked children: no second walk.
    name = kidsText(kids, 300);
  else name = accName(el, role);
  if (name) node.name = name.length > 900 ? `${name.slice(0, 900)}…` : name;
  const value = isSecretEditable(el) ? (el.textContent?.trim() ? REDACTED : '') : liveValue(el, role);
  if (value !== undefined) node.value = value;
  let st = statesOf(promotedFrom ?? el, role, ctx.focused);
  if (promotedFrom) st = { ...st, checked: promotedFrom.checked };
  if (st) node.st = st;
  if (tag === 'iframe' || tag === 'frame') {
    node.frame = 1;
    if (frameDocumentBlank(el)) ctx.blankFrames.push(node.id);
  }
  if (sroot) node.shadow = sroot.mode;
  if (ctx.opts.urls && (tag === 'a' || tag === 'area') && el.hasAttribute('href'))
    node.url = (el as HTMLAnchorElement).href;

  if (isInteractive) {
    node.ia = 1;
    if (promoted) node.clk = 1;
    node.hint = selectorHint(el);
    if (ctx.opts.attrs?.length) {
      const attrs = attrsOf(el, ctx.opts.attrs);
      if (attrs) node.attrs = attrs;
    }
    const disabled = st?.disabled === true || (promotedFrom?.disabled ?? false);
    if (disabled) node.dis = 1;
    const r = rect();
    const hasBox = r.width > 0 && r.height > 0;
    const pointer = style.pointerEvents !== 'none';
    let cov = false;
    if (hasBox && visible && pointer) cov = covered(el, r, ctx.modal);
    if (cov) node.cov = 1;
    if (hasBox && visible && pointer && !cov && !disabled) node.act = 1;
    // A visually hidden checkbox/radio stays actionable through its visible label.
    if (!node.act && !disabled && (role === 'checkbox' || role === 'radio') && tag === 'input') {
      const labels = (el as HTMLInputElement).labels;
      if (labels) {
        for (const l of Array.from(labels)) {
          const lr = l.getBoundingClientRect();
          if (lr.width > 0 && lr.height > 0 && !covered(l, lr, ctx.modal)) {
            node.act = 1;
            delete node.cov;
            break;
          }
        }
      }
    }
  } else if (role === 'iframe') {
    node.hint = selectorHint(el);
  }
  if (ctx.opts.boxes && (rect().width > 0 || rect().height > 0)) {
    node.box = [
      Math.round(rect().x),
      Math.round(rect().y),
      Math.round(rect().width),
      Math.round(rect().height),
    ];
  }

  let children = finish(kids);
  // Leaf-like roles: the name already says what the content says.
  if (LEAF_ROLES.has(role) || promoted || promotedFrom) {
    if (!children.some((k) => typeof k !== 'string' && hasInteractive(k))) {
      // Nested nodes give their name, or else their own content (an <article> inside a link).
      const text = kidsText(children, 100_000);
      children = [];
      if (text && text !== node.name && !(node.name ?? '').includes(text)) node.text = text;
    }
  }
  if (children.length === 1 && typeof children[0] === 'string') {
    const t = children[0];
    if (t !== node.name) node.text = t;
    children = [];
  }
  if (children.length) node.c = children;
  if (ctx.inl.length > inlMark) node.inl = ctx.inl.splice(inlMark);
  if (block && out.length && typeof out[out.length - 1] === 'string') pushText(out, ' ');
  out.push(node);
}

/** An explicit role attribute that resolved to this (wrapper) role: the author asked for it. */
function keepsExplicitRole(el: Element, role: string): boolean {
  const r = el.getAttribute('role');
  return (
    !!r &&
    r
      .toLowerCase()
      .split(/\s+/)
      .some((t) => (ROLE_SYNONYM[t] ?? t) === role)
  );
}

/** Descendants that make a name differ from the walked text (hidden from names, owned, relabelled). */
const NAME_AFFECTING = '[aria-hidden="true"],[aria-owns],[aria-labelledby],[aria-labeledby],rt';

function kidsText(kids: Out, max: number): string {
  let s = '';
  for (const k of kids) {
    if (s.length > max) break;
    if (typeof k === 'string') s += k;
    else s += ` ${k.name || k.text || (k.c ? kidsText(k.c, max) : '')} `;
  }
  s = norm(s);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function hasInteractive(n: RawElement): boolean {
  if (n.ia || n.frame) return true;
  return !!n.c?.some((k) => typeof k !== 'string' && hasInteractive(k));
}

function labelPromotionTarget(label: Element): HTMLInputElement | null {
  if (label.localName !== 'label') return null;
  const ctl = (label as HTMLLabelElement).control;
  if (ctl?.localName !== 'input') return null;
  const input = ctl as HTMLInputElement;
  if (input.type !== 'checkbox' && input.type !== 'radio') return null;
  // Only when the control itself is not rendered (display:none or hidden ancestor).
  if (input.checkVisibility?.() ?? styleOf(input).display !== 'none') return null;
  return input;
}

function walkOptions(select: HTMLSelectElement, out: Out, _ctx: Ctx): void {
  // Which option of a secret field is chosen is itself the secret.
  if (isSecret(select)) return;
  for (const o of Array.from(select.options)) {
    const node: RawElement = {
      id: idOf(o),
      role: 'option',
      tag: 'option',
      name: normLabel(o.getAttribute('aria-label') ?? '') || norm(o.label || o.text),
    };
    if (o.selected) node.st = { selected: true };
    out.push(node);
  }
}

function walk(opts: WalkOptions): WalkResult | WalkError {
  let res: WalkResult | WalkError;
  try {
    res = walkDocument(opts);
  } finally {
    // Whatever the outcome, nothing cached for one walk outlives it.
    styleCache.clear();
    transformCache.clear();
    inWalk = false;
    pseudoSet = null;
    walkRegistry = null;
  }
  if (res.ok && opts.blank?.[docId]) {
    const seen = new Set(res.blankFrames);
    for (const id of opts.blank[docId]) {
      const el = seen.has(id) ? null : elementById(docId, id);
      if (el && (el.localName === 'iframe' || el.localName === 'frame') && frameDocumentBlank(el)) {
        res.blankFrames ??= [];
        res.blankFrames.push(id);
      }
    }
  }
  if (res.ok && opts.nested?.[docId]) walkNested(res, opts);
  return res;
}

const SCRIPT_KEY = Symbol.for('tabwright.snapshot');

/**
 * The child frames the engine asked for (WalkOptions.nested), walked by their own page script
 * (the frame's realm, its own ids and document), as the engine's own call to that frame would:
 * the same options without this frame's scope. One round trip for a page and its frames. A frame
 * this document cannot read (cross-origin, gone, no script yet) is left out: the engine asks it.
 */
function walkNested(res: WalkResult, opts: WalkOptions): void {
  const { selector: _s, scopeId: _i, doc: _d, ...childOpts } = opts;
  const out: NestedWalk[] = [];
  for (const id of opts.nested![docId]!) {
    try {
      const el = elementById(docId, id);
      if (!el || (el.localName !== 'iframe' && el.localName !== 'frame')) continue;
      const win = (el as HTMLIFrameElement).contentWindow as unknown as Record<symbol, unknown> | null;
      const api = win?.[SCRIPT_KEY] as TabwrightPageApi | undefined;
      if (!api || typeof api.call !== 'function') continue;
      const r = api.call({ op: 'walk', opts: childOpts }) as WalkResult | WalkError;
      if (r.ok && r.nested) {
        out.push(...r.nested);
        delete r.nested;
      }
      out.push({ doc: docId, id, result: r });
    } catch {
      // Not readable from here: the engine's own call to the frame says why.
    }
  }
  if (out.length) res.nested = out;
}

function walkDocument(opts: WalkOptions): WalkResult | WalkError {
  const t0 = performance.now();
  styleCache.clear();
  transformCache.clear();
  inWalk = true;
  pseudoSet = computePseudoSet(opts.failedSheets);
  let root: Element | null = document.body ?? document.documentElement;
  if (opts.selector) {
    try {
      root = document.querySelector(opts.selector);
    } catch (e) {
      return { ok: false, reason: 'invalid_selector', message: String((e as Error).message ?? e) };
    }
    if (!root) return { ok: false, reason: 'no_match', message: `no element matches ${opts.selector}` };
  } else if (opts.scopeId !== undefined) {
    root = elementById(opts.doc ?? '', opts.scopeId);
    if (!root) return { ok: false, reason: 'stale_ref', message: 'the element is gone' };
  }
  walkRegistry = closedRegistry();
  const owners = new Map<Element, Element[]>();
  const owned = new Set<Element>();
  for (const o of Array.from(document.querySelectorAll('[aria-owns]'))) {
    const list: Element[] = [];
    for (const id of (o.getAttribute('aria-owns') ?? '').trim().split(/\s+/)) {
      const t = id ? document.getElementById(id) : null;
      if (t && t !== o && !t.contains(o)) {
        list.push(t);
        owned.add(t);
      }
    }
    if (list.length) owners.set(o, list);
  }
  const margin = opts.margin;
  const ctx: Ctx = {
    opts,
    focused: deepActiveElement(),
    modal: findModal(),
    owned,
    owners,
    winTop: margin === undefined ? -Infinity : -margin,
    winBottom: margin === undefined ? Infinity : innerHeight + margin,
    outside: 0,
    count: 0,
    inl: [],
    blankFrames: [],
  };
  const out: Out = [];
  const scoped = opts.selector !== undefined || opts.scopeId !== undefined;
  const top: RawElement = { id: 0, role: 'document', tag: '#document', name: norm(document.title) };
  if (root) {
    if (scoped) {
      // Inherit cursor/visibility context from the scope root's parent.
      const p = parentElement(root);
      visit(root, out, ctx, { parentStyle: p ? styleOf(p) : null, inInteractive: false, visible: true });
    } else {
      walkChildren(root, out, ctx, { parentStyle: null, inInteractive: false, visible: true });
    }
  }
  const children = finish(out);
  if (children.length) top.c = children;
  if (ctx.inl.length) top.inl = ctx.inl;
  const se = document.scrollingElement ?? document.documentElement;
  return {
    ok: true,
    doc: docId,
    // The page's own secret values, for the engine's registry (it removes them before anything leaves).
    secrets: collectSecrets(document, secretReason),
    url: location.href,
    title: document.title,
    root: top,
    viewport: {
      width: innerWidth,
      height: innerHeight,
      scrollX: Math.round(scrollX),
      scrollY: Math.round(scrollY),
      pageHeight: se ? se.scrollHeight : 0,
    },
    outside: ctx.outside,
    elements: ctx.count,
    ...(ctx.blankFrames.length ? { blankFrames: ctx.blankFrames } : {}),
    ms: Math.round(performance.now() - t0),
  };
}

// ---------------------------------------------------------------- entry

export interface TabwrightPageApi {
  doc: string;
  walk(opts: WalkOptions): WalkResult | WalkError;
  idOf(el: Element): number;
  element(doc: string, id: number): Element | null;
  call(c: PageCall, el?: Element): unknown;
}

export function create(): TabwrightPageApi {
  return {
    doc: docId,
    walk,
    idOf,
    element: elementById,
    call(c: PageCall, el?: Element): unknown {
      if (c.op === 'walk') return walk(c.opts);
      if (c.op === 'idOf') return el ? { doc: docId, id: idOf(el) } : null;
      if (c.op === 'check') return elementById(c.doc, c.id) !== null;
      return null;
    },
  };
}
