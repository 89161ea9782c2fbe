import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { CDPSession, Page as PwPage } from 'playwright-core';
import type { ChromiumPage } from '../../src/backends/chromium/chromium-page.js';
import type { Page, Session } from '../../src/index.js';
import type { SnapshotNode } from '../../src/snapshot/index.js';
import { walkModel } from '../../src/snapshot/model.js';
import { registryOf } from '../../src/snapshot/refs.js';
import { CORPUS_ROOT } from './fixture-server.js';

/**
 * Scoring over the web-platform-tests accessible-name and role cases stored in
 * ../shared/corpus/wpt-accname/ (read in place, never copied). A small server
 * serves the corpus at its WPT paths and, in place of WPT's harness files, stubs
 * of our own that only record which elements carry expectations (the pages' own
 * scripts run, so DOM built by script is there). For every case we then read
 * our snapshot model's role and name, Chromium's (CDP Accessibility.getPartialAXTree)
 * and, for the benchmark, Playwright's (locator.ariaSnapshot()).
 */

export const WPT_ROOT = join(CORPUS_ROOT, 'wpt-accname');

/** The WPT test pages (from the corpus manifest). */
export function wptPages(): string[] {
  return readFileSync(join(WPT_ROOT, 'MANIFEST.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t')[0]!)
    .filter((p) => p.endsWith('.html'));
}

// Stubs: every recorded case is { el, kind, expected: acceptable values, test }.
const HARNESS = `
window.__twWpt = { cases: [], deferred: [], tests: [] };
(function () {
  var w = window.__twWpt;
  w.record = function (el, kind, expected, test) { if (el) w.cases.push({ el: el, kind: kind, expected: expected, test: test }); };
  var noop = function () {};
  window.setup = noop; window.done = noop; window.add_completion_callback = noop; window.add_result_callback = noop;
  window.promise_test = function (fn, name) { w.tests.push({ fn: fn, name: name }); };
  window.test = window.promise_test;
  window.async_test = function () { return { step: noop, step_func: function (f) { return f; }, done: noop }; };
  // A computed value is a marker for a pending case; assert_equals then gives its expectation.
  var ask = function (kind) { return function (el) { w.pending = { el: el, kind: kind }; return Promise.resolve('\\u0000tw'); }; };
  window.test_driver = { get_computed_role: ask('role'), get_computed_label: ask('name') };
  window.assert_equals = function (actual, expected, msg) {
    if (actual === '\\u0000tw' && w.pending) { w.record(w.pending.el, w.pending.kind, [expected], w.current || msg); w.pending = null; }
  };
  ['assert_true', 'assert_false', 'assert_not_equals', 'assert_array_equals'].forEach(function (n) { window[n] = noop; });
  /** Runs the pages' own promise tests (they only record), then deferred recorders; tags every case element. */
  w.collect = async function () {
    for (var i = 0; i < w.deferred.length; i++) w.deferred[i]();
    for (var j = 0; j < w.tests.length; j++) { w.current = w.tests[j].name; try { await w.tests[j].fn({}); } catch (e) {} }
    var els = [];
    return w.cases.map(function (c) {
      var k = els.indexOf(c.el);
      if (k < 0) { k = els.length; els.push(c.el); c.el.setAttribute('data-tw-el', String(k)); }
      return { el: k, kind: c.kind, expected: c.expected, test: c.test || '' };
    });
  };
})();
`;

const ARIA_UTILS = `
var AriaUtils = {
  record: function (el, kind, expected, test) { window.__twWpt.record(el, kind, expected, test); },
  each: function (selector, f) { document.querySelectorAll(selector).forEach(f); },
  // slot.html passes (4, '.labelled'): the selector is the string argument.
  sel: function (a, b) { return typeof a === 'string' ? [a, b] : [b, undefined]; },
  assignAndVerifyRolesByRoleNames: function (roles) {
    var self = this;
    roles.forEach(function (role) {
      var el = document.createElement('div');
      el.textContent = 'x';
      el.setAttribute('role', role);
      document.body.appendChild(el);
      self.record(el, 'role', [role.toLowerCase()], 'role: ' + role);
    });
  },
  verifyRolesBySelector: function (selector, prefix) {
    var self = this;
    this.each(selector, function (el) {
      var r = el.getAttribute('data-expectedrole');
      self.record(el, 'role', [r], (prefix || '') + (el.getAttribute('data-testname') || r));
    });
  },
  verifyRoleOrVariantRolesBySelector: function (selector, roles) {
    var self = this;
    this.each(selector, function (el) { self.record(el, 'role', roles, el.getAttribute('data-testname') || ''); });
  },
  verifyGenericRolesBySelector: function (selector) { this.verifyRoleOrVariantRolesBySelector(selector, ['generic', '', 'none']); },
  verifyLabelsBySelector: function (a, b) {
    var self = this;
    var selector = this.sel(a, b)[0];
    var prefix = this.sel(a, b)[1];
    this.each(selector, function (el) {
      // html-aam/names.html spells it data-expectedname.
      var l = el.getAttribute('data-expectedlabel');
      if (l === null) l = el.getAttribute('data-expectedname');
      self.record(el, 'name', [l], (prefix || '') + (el.getAttribute('data-testname') || l));
    });
  },
  verifyRolesAndLabelsBySelector: function (selector) {
    this.verifyLabelsBySelector(selector, 'Label: ');
    this.verifyRolesBySelector(selector, 'Role: ');
  },
};
`;

/** The manual (ATTAcomm) pages: their "name is" steps, read once the body exists. */
const ATTACOMM = `
function ATTAcomm(spec) {
  window.__twWpt.deferred.push(function () {
    (spec.steps || []).forEach(function (s) {
      var atk = (s.test && s.test.ATK) || [];
      atk.forEach(function (a) {
        if (a[0] === 'property' && a[1] === 'name' && a[2] === 'is')
          window.__twWpt.record(document.getElementById(s.element), 'name', [a[3]], spec.title + ': ' + s.title);
      });
    });
  });
}
`;

const STUBS: Record<string, string> = {
  '/resources/testharness.js': HARNESS,
  '/resources/testharnessreport.js': '',
  '/resources/testdriver.js': '',
  '/resources/testdriver-vendor.js': '',
  '/resources/testdriver-actions.js': '',
  '/wai-aria/scripts/aria-utils.js': ARIA_UTILS,
  '/wai-aria/scripts/ATTAcomm.js': ATTACOMM,
  '/wai-aria/scripts/manual.css': '',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export interface WptServer {
  url: string;
  close(): Promise<void>;
}

/** The corpus at its WPT paths on 127.0.0.1, with our stubs in place of WPT's harness. */
export async function startWptServer(): Promise<WptServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const stub = STUBS[path];
    if (stub !== undefined) {
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'text/plain' }).end(stub);
      return;
    }
    const file = normalize(join(WPT_ROOT, decodeURIComponent(path)));
    if (!file.startsWith(WPT_ROOT) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res
      .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
      .end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface WptCase {
  file: string;
  test: string;
  kind: 'name' | 'role';
  /** Acceptable values (one, or the generic variants). */
  expected: string[];
  /** Our model's role and name; null when the element has no node of its own. */
  ours: { role: string; name: string } | null;
  chromium: { role: string; name: string } | null;
  playwright?: { role: string; name: string } | null;
  /** The element's markup, cut, for reports. */
  html: string;
}

/** WPT's comparison: ASCII whitespace collapsed and trimmed (non-breaking spaces stay). */
export function wptNorm(s: string): string {
  return s.replace(/[\t\n\f\r ]+/g, ' ').replace(/^ | $/g, '');
}

/** Chromium-internal role names whose ARIA (or WPT) spelling differs. */
const CHROMIUM_ROLES: Record<string, string> = {
  DisclosureTriangle: 'button',
  LabelText: 'generic',
  StaticText: 'text',
};

/** ARIA synonyms: our model says img (ARIA 1.2) where ARIA 1.3 and Chromium say image. */
const SYNONYMS: Record<string, string> = { image: 'img', presentation: 'none' };
const canonical = (r: string) => SYNONYMS[r] ?? r;

/** Does a value pass the case? A missing node counts as role none and name "". */
export function passes(c: WptCase, v: { role: string; name: string } | null): boolean {
  if (c.kind === 'role') return c.expected.map(canonical).includes(canonical(v?.role ?? 'none'));
  return c.expected.includes(wptNorm(v?.name ?? ''));
}

/** Which node of the model stands for each tagged element. */
function modelByRef(model: SnapshotNode): Map<string, SnapshotNode> {
  const m = new Map<string, SnapshotNode>();
  for (const n of walkModel(model)) {
    if (n.element_ref) m.set(n.element_ref, n);
    for (const i of n.inline ?? []) if (i.element_ref) m.set(i.element_ref, i);
  }
  return m;
}

async function chromiumOf(
  cdp: CDPSession,
  count: number,
): Promise<Map<number, { role: string; name: string } | null>> {
  const out = new Map<number, { role: string; name: string } | null>();
  const doc = (await cdp.send('DOM.getDocument', { depth: 0 })) as { root: { nodeId: number } };
  const { nodeIds } = (await cdp.send('DOM.querySelectorAll', {
    nodeId: doc.root.nodeId,
    selector: '[data-tw-el]',
  })) as { nodeIds: number[] };
  for (const nodeId of nodeIds) {
    const { node } = (await cdp.send('DOM.describeNode', { nodeId })) as {
      node: { backendNodeId: number; attributes?: string[] };
    };
    const attrs = node.attributes ?? [];
    const k = Number(attrs[attrs.indexOf('data-tw-el') + 1]);
    const { nodes } = (await cdp.send('Accessibility.getPartialAXTree', {
      backendNodeId: node.backendNodeId,
      fetchRelatives: false,
    })) as {
      nodes: {
        backendDOMNodeId?: number;
        ignored?: boolean;
        role?: { value: string };
        name?: { value: string };
      }[];
    };
    const ax = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId) ?? nodes[0];
    if (!ax || ax.ignored) out.set(k, null);
    else {
      const role = ax.role?.value ?? '';
      out.set(k, { role: CHROMIUM_ROLES[role] ?? role, name: ax.name?.value ?? '' });
    }
  }
  for (let k = 0; k < count; k++) if (!out.has(k)) out.set(k, null);
  return out;
}

/** Playwright's own computation: the first line of the element's aria snapshot. */
async function playwrightOf(pw: PwPage, k: number): Promise<{ role: string; name: string } | null> {
  let yaml = '';
  try {
    yaml = await pw.locator(`[data-tw-el="${k}"]`).ariaSnapshot({ timeout: 2000 });
  } catch {
    return null;
  }
  const first = yaml.split('\n')[0]?.trim() ?? '';
  let line = first.startsWith('- ') ? first.slice(2) : first;
  if (line.endsWith(':')) line = line.slice(0, -1);
  const m = /^([a-z]+)(?: "((?:[^"\\]|\\.)*)")?/.exec(line);
  if (!m) return null;
  let name = m[2] ?? '';
  try {
    name = JSON.parse(`"${name}"`);
  } catch {}
  return { role: m[1]!, name };
}

/**
 * Loads one WPT page in the engine's page and scores every case on it: our model (one
 * snapshot of the whole page), Chromium's computation and optionally Playwright's.
 */
export async function scorePage(
  session: Session,
  page: Page,
  base: string,
  file: string,
  opts: { playwright?: boolean } = {},
): Promise<WptCase[]> {
  await page.open(`${base}/${file}`, 'load', { timeoutMs: 30_000 });
  const pw = (page.backend as ChromiumPage).pw;
  const raw = (await pw.evaluate(() =>
    (window as unknown as { __twWpt?: { collect(): Promise<unknown> } }).__twWpt?.collect(),
  )) as { el: number; kind: 'name' | 'role'; expected: string[]; test: string }[] | undefined;
  if (!raw?.length) return [];
  const count = Math.max(...raw.map((c) => c.el)) + 1;
  const snap = await page.snapshot({ max_chars: 10_000_000 });
  const nodes = modelByRef(snap.model);
  const idents = (await pw.evaluate((n) => {
    const tw = (globalThis as unknown as Record<symbol, { doc: string; idOf(e: Element): number }>)[
      Symbol.for('tabwright.snapshot')
    ]!;
    const out: { doc: string; id: number; html: string }[] = [];
    for (let k = 0; k < n; k++) {
      const el = document.querySelector(`[data-tw-el="${k}"]`)!;
      out.push({ doc: tw.doc, id: tw.idOf(el), html: el.outerHTML.slice(0, 200) });
    }
    return out;
  }, count)) as { doc: string; id: number; html: string }[];
  const registry = registryOf(session);
  const mainFrame = page.backend.frames()[0]!.id;
  const ours = idents.map((i) => {
    const n = nodes.get(registry.refFor(page.id, mainFrame, i.doc, i.id));
    return n ? { role: n.role, name: n.name } : null;
  });
  const cdp = await pw.context().newCDPSession(pw);
  const chromium = await chromiumOf(cdp, count);
  await cdp.detach().catch(() => {});
  const playwright = new Map<number, { role: string; name: string } | null>();
  if (opts.playwright) for (let k = 0; k < count; k++) playwright.set(k, await playwrightOf(pw, k));
  return raw.map((c) => {
    const out: WptCase = {
      file,
      test: c.test,
      kind: c.kind,
      expected: c.expected,
      ours: ours[c.el] ?? null,
      chromium: chromium.get(c.el) ?? null,
      html: idents[c.el]!.html,
    };
    if (opts.playwright) out.playwright = playwright.get(c.el) ?? null;
    return out;
  });
}

export interface Tally {
  total: number;
  ours: number;
  chromium: number;
  playwright: number;
}

export function tally(cases: WptCase[], kind: 'name' | 'role'): Tally {
  const of = cases.filter((c) => c.kind === kind);
  return {
    total: of.length,
    ours: of.filter((c) => passes(c, c.ours)).length,
    chromium: of.filter((c) => passes(c, c.chromium)).length,
    playwright: of.filter((c) => c.playwright !== undefined && passes(c, c.playwright)).length,
  };
}

/** One line per case where Chromium passes and we do not give Chromium's answer. */
export function behindChromium(cases: WptCase[]): string[] {
  const out: string[] = [];
  for (const c of cases) {
    if (!passes(c, c.chromium)) continue;
    const field = c.kind;
    // No node of its own: no name (role none), as with Chromium's ignored nodes.
    const ourV = field === 'role' ? (c.ours?.role ?? null) : wptNorm(c.ours?.name ?? '');
    const theirV = field === 'role' ? (c.chromium?.role ?? null) : wptNorm(c.chromium?.name ?? '');
    if (passes(c, c.ours) && (ourV === theirV || c.kind === 'role')) continue;
    out.push(
      `${c.file} [${c.kind}] ${c.test}: ours ${ourV === null ? '(no node)' : JSON.stringify(ourV)} chromium ${JSON.stringify(theirV)} expected ${JSON.stringify(c.expected)} :: ${c.html}`,
    );
  }
  return out;
}
