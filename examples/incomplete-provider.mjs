#!/usr/bin/env node
// A deliberately incomplete Browser Provider Protocol v0.1 provider, for the
// conformance suite's own tests: it has no browser. page.open fetches the URL
// over HTTP and page.snapshot returns the page's text without element refs;
// click, type, wait and screenshot are missing. With --lie it also claims
// page.click in provider.describe without implementing it.
//
//   tabwright conformance --provider "node examples/incomplete-provider.mjs"
import { createInterface } from 'node:readline';

const lie = process.argv.includes('--lie');
const sessions = new Map();
let seq = 0;

const send = (msg) => process.stdout.write(`${JSON.stringify({ protocol_version: '0.1', ...msg })}\n`);
const fail = (id, code, message, details = {}) =>
  send({ id, ok: false, error: { code, message, retryable: false, details } });

const methods = {
  'provider.describe': () => ({
    provider_id: 'incomplete_example',
    provider_label: 'Incomplete example provider',
    provider_version: '0.0.1',
    protocol_version: '0.1',
    browser_families: [],
    transport: 'stdio-json',
    certification_tier: 'experimental',
    capabilities: {
      core_methods: [
        'provider.describe',
        'provider.status',
        'session.ensure',
        'session.close',
        'page.open',
        'page.snapshot',
        ...(lie ? ['page.click'] : []),
      ],
      optional_methods: [],
      features: [],
      custom_methods: [],
    },
  }),
  'provider.status': () => ({
    availability: 'degraded',
    browser_detected: false,
    browser_running: false,
    setup_state: 'partial',
    requires_manual_setup: false,
    recommended_browser: 'none',
    manual_steps: [],
    diagnostics: [{ level: 'warning', code: 'no_browser', message: 'This example fetches pages over HTTP; it has no browser.' }],
  }),
  'session.ensure': (p) => {
    if (p.client_session_id) {
      for (const [id, s] of sessions) if (s.client === p.client_session_id) return { session_id: id, default_page_id: 'p1' };
    }
    const id = `s${++seq}`;
    sessions.set(id, { client: p.client_session_id, url: null, html: '' });
    return { session_id: id, browser_family: 'none', default_page_id: 'p1' };
  },
  'session.close': (p) => {
    if (!sessions.delete(p.session_id)) throw ['session_not_found', `No session ${p.session_id}.`];
    return { closed: true };
  },
  'page.open': async (p) => {
    const s = session(p);
    if (typeof p.url !== 'string') throw ['invalid_request', 'url must be a string.', { field: 'url' }];
    const res = await fetch(p.url);
    s.html = await res.text();
    s.url = res.url;
    return { page_id: 'p1', url: s.url, title: title(s.html) };
  },
  'page.snapshot': (p) => {
    const s = session(p);
    const text = s.html
      .replace(/<script[\s\S]*?<\/script>/gi, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return {
      page_id: 'p1',
      url: s.url,
      title: title(s.html),
      text,
      snapshot: { format: 'jcode.page_snapshot.v1', root: { node_id: 'n1', role: 'document', name: title(s.html), children: [] }, nodes: [] },
      elements: [],
    };
  },
};

function session(p) {
  if (typeof p.session_id !== 'string') throw ['invalid_request', 'session_id is required.', { field: 'session_id' }];
  const s = sessions.get(p.session_id);
  if (!s) throw ['session_not_found', `No session ${p.session_id}.`];
  return s;
}

function title(html) {
  return /<title>([^<]*)<\/title>/i.exec(html)?.[1] ?? '';
}

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (!line.trim()) return;
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    return fail(null, 'invalid_request', 'Not JSON.');
  }
  const id = req?.id ?? null;
  if (req?.protocol_version !== '0.1') return fail(id, 'invalid_request', 'Use protocol_version "0.1".');
  if (req.method === 'page.click' && lie) return fail(id, 'unsupported_method', 'page.click is not implemented.');
  const m = methods[req.method];
  if (!m) return fail(id, 'unsupported_method', `${req.method} is not implemented.`);
  try {
    send({ id, ok: true, result: await m(req.params ?? {}), warnings: [] });
  } catch (err) {
    if (Array.isArray(err)) fail(id, err[0], err[1], err[2]);
    else fail(id, 'internal_error', String(err?.message ?? err));
  }
});
