import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProviderClient } from '../src/conformance/client.js';
import { tempHome } from './helpers/engine.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { spawnProvider } from './helpers/provider.js';

type Elem = { element_ref: string; role: string; name: string };

describe('provider methods through the real process', () => {
  let home: ReturnType<typeof tempHome>;
  let server: FixtureServer;
  let p: ProviderClient;
  let sid: string;
  let index: string;

  const refOf = (elements: Elem[], name: string): string => {
    const e = elements.find((x) => x.name === name);
    assert.ok(e, `no element named ${name} in ${elements.map((x) => x.name).join(', ')}`);
    return e.element_ref;
  };
  const snap = async (extra: Record<string, unknown> = {}) =>
    p.call('page.snapshot', { session_id: sid, ...extra });
  const open = async () => p.call('page.open', { session_id: sid, url: index });
  const outText = async () =>
    (await p.call('page.eval', { session_id: sid, script: "document.getElementById('out').textContent" }))
      .value;

  before(async () => {
    home = tempHome();
    server = await startFixtureServer();
    index = `${server.url}/fixtures/provider/index.html`;
    // A provider without Firefox (TABWRIGHT_FIREFOX points nowhere): a preference for a family it
    // does not offer must be refused (the Firefox matrix covers the provider that offers both).
    p = spawnProvider(home.dir, [], { TABWRIGHT_FIREFOX: '/nonexistent/firefox' });
    const s = await p.call('session.ensure', {
      client_session_id: 'jcode_1',
      events: true,
      metadata: { owner: 'test' },
    });
    sid = s.session_id;
    assert.equal(s.reused, false);
    assert.equal(s.browser_family, 'chromium');
    assert.equal(s.attached_to_existing_browser, false);
    assert.ok(s.default_page_id);
  });
  after(async () => {
    await p.close();
    await server.close();
    home.cleanup();
  });

  it('session.ensure reuses the live session of the same client_session_id', async () => {
    const again = await p.request('session.ensure', { client_session_id: 'jcode_1', persist: true });
    assert.ok(again.ok);
    assert.equal(again.result.session_id, sid);
    assert.equal(again.result.reused, true);
    assert.equal((again.warnings[0] as { code: string }).code, 'options_ignored_on_reuse');
    const other = await p.call('session.ensure', { client_session_id: 'jcode_2' });
    assert.notEqual(other.session_id, sid);
    const bad = await p.request('session.ensure', { browser_preference: 'firefox' });
    assert.ok(!bad.ok && bad.error.code === 'unsupported_target');
    const closed = await p.call('session.close', { session_id: other.session_id });
    assert.deepEqual(closed, { session_id: other.session_id, closed: true, detached: false });
    const after = await p.request('page.snapshot', { session_id: other.session_id });
    assert.ok(!after.ok && after.error.code === 'session_not_found');
    const fresh = await p.call('session.ensure', { client_session_id: 'jcode_2' });
    assert.notEqual(fresh.session_id, other.session_id, 'a closed session is never handed out again');
    await p.call('session.close', { session_id: fresh.session_id });
  });

  it('page.open, snapshot (formats and include flags), click, type, wait, events', async () => {
    const o = await open();
    assert.equal(o.title, 'Provider test');
    assert.equal(o.status, 200);
    assert.equal(o.navigation_state, 'complete');
    const nav = await p.waitEvent((e) => e.event === 'page.navigated' && e.payload.url === index);
    assert.ok(nav);
    assert.equal(nav.payload.session_id, sid);

    const s = await snap({ include_html: true, include_dom: true, include_screenshot: true });
    assert.equal(s.snapshot.format, 'jcode.page_snapshot.v1');
    assert.ok(s.snapshot.root.children.length > 0);
    assert.ok(
      s.snapshot.nodes.every(
        (n: { node_id: string; actionable: boolean }) => n.node_id && typeof n.actionable === 'boolean',
      ),
    );
    assert.match(s.text, /button "Go"/);
    assert.ok(s.elements.length > 5);
    assert.ok(!s.html.includes('hunter2'), 'password values never leave the process');
    assert.ok(!JSON.stringify(s).includes('hunter2'));
    assert.ok(s.html.includes('Provider test page'));
    assert.ok(s.provider_data.model);
    assert.equal(s.screenshot.media_type, 'image/png');
    // DOM-derived extras (tag, attrs) ride on the nodes only with include_dom.
    type V1Node = { role: string; tag?: string; attrs?: Record<string, string> };
    const domNodes: V1Node[] = s.snapshot.nodes;
    assert.ok(domNodes.every((n) => typeof n.tag === 'string'));
    assert.ok(domNodes.some((n) => n.attrs?.type === 'password'));
    const plain = await snap({});
    const plainNodes: V1Node[] = plain.snapshot.nodes;
    assert.equal(plainNodes.length, domNodes.length);
    assert.ok(plainNodes.every((n) => n.tag === undefined && n.attrs === undefined));
    assert.equal(plain.provider_data, undefined);
    // A caller that reads only the text can leave the node list and elements out; the shape stays.
    const lean = await snap({ include_nodes: false, include_elements: false });
    assert.equal(lean.snapshot.format, 'jcode.page_snapshot.v1');
    assert.equal(lean.snapshot.root.role, 'document');
    assert.deepEqual(lean.snapshot.nodes, []);
    assert.deepEqual(lean.elements, []);
    assert.equal(lean.text, s.text);
    const small = await snap({ max_nodes: 5, include_text: false });
    assert.ok(small.snapshot.nodes.length <= 5);
    assert.equal(small.text, '');

    const go = refOf(s.elements, 'Go');
    const c = await p.call('page.click', { session_id: sid, element_ref: go });
    assert.equal(c.clicked, true);
    assert.equal(c.navigation_occurred, false);
    assert.equal(c.receipt.action, 'click');
    const w = await p.call('page.wait', { session_id: sid, text_present: 'clicked 1', timeout_ms: 5000 });
    assert.equal(w.satisfied, true);
    assert.equal(w.matched_condition, 'text_present');
    await p.call('page.click', { session_id: sid, selector: '#go' });
    await p.call('page.click', { session_id: sid, text_query: 'Go', exact: true });
    assert.equal(await outText(), 'clicked 3');
    const box = (
      await p.call('page.eval', {
        session_id: sid,
        script:
          "const r = document.getElementById('go').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 };",
      })
    ).value;
    const pc = await p.call('page.click', { session_id: sid, position: box });
    assert.equal(pc.clicked, true);
    assert.equal(await outText(), 'clicked 4');
    const two = await p.request('page.click', { session_id: sid, selector: '#go', text_query: 'Go' });
    assert.ok(!two.ok && two.error.code === 'invalid_request');
    assert.equal(two.error.details.field, 'text_query');
    assert.equal(two.error.details.reason, 'several_targets');
    // The kit's target rules in the draft's field names: exact goes with text_query, none is refused.
    const stray = await p.request('page.click', { session_id: sid, selector: '#go', exact: true });
    assert.ok(!stray.ok && stray.error.details.field === 'exact');
    assert.equal(stray.error.details.reason, 'not_applicable');
    const none = await p.request('page.click', { session_id: sid });
    assert.ok(!none.ok && none.error.code === 'invalid_request');
    assert.equal(none.error.details.field, 'element_ref');
    assert.equal(none.error.details.reason, 'no_target');
    assert.equal(await outText(), 'clicked 4', 'nothing was clicked by a refused request');

    const name = refOf(s.elements, 'Name');
    const t = await p.call('page.type', { session_id: sid, element_ref: name, text: 'Ada' });
    assert.equal(t.typed, true);
    await p.call('page.type', {
      session_id: sid,
      element_ref: name,
      text: 'Grace',
      replace: true,
      submit: true,
    });
    await p.call('page.wait', { session_id: sid, text_present: 'submitted Grace' });
    const secret = refOf(s.elements, 'Secret');
    const st = await p.call('page.type', {
      session_id: sid,
      element_ref: secret,
      text: 'topsecret',
      replace: true,
    });
    assert.ok(!JSON.stringify(st).includes('topsecret'), 'typed secrets are not echoed');

    const any = await p.call('page.wait', {
      session_id: sid,
      mode: 'any',
      text_present: 'nope',
      url_matches: '**/provider/*.html',
    });
    assert.equal(any.matched_condition, 'url_matches');
    const unmet = await p.request('page.wait', { session_id: sid, text_present: 'never', timeout_ms: 300 });
    assert.ok(!unmet.ok);
    assert.equal(unmet.error.code, 'not_ready');
    assert.equal(unmet.error.retryable, true);
    assert.equal(unmet.error.details.reason, 'wait_timeout');
  });

  it('stale refs and covered elements are refused with reasons', async () => {
    await open();
    const s = await snap();
    const remove = refOf(s.elements, 'Remove me');
    await p.call('page.click', { session_id: sid, element_ref: remove });
    const stale = await p.request('page.click', { session_id: sid, element_ref: remove });
    assert.ok(!stale.ok);
    assert.equal(stale.error.code, 'element_not_found');
    assert.equal(stale.error.details.reason, 'stale_ref');
    const covered = await p.request('page.click', {
      session_id: sid,
      element_ref: refOf(s.elements, 'Covered'),
      timeout_ms: 1500,
    });
    assert.ok(!covered.ok);
    assert.equal(covered.error.code, 'element_not_actionable');
    assert.equal(covered.error.details.reason, 'obscured');
    await open();
    const afterNav = await p.request('page.click', { session_id: sid, element_ref: refOf(s.elements, 'Go') });
    assert.ok(!afterNav.ok && afterNav.error.details.reason === 'stale_ref', 'refs die with their document');
  });

  it('page.screenshot: inline, file, clip, full page, element', async () => {
    await open();
    const v = await p.call('page.screenshot', { session_id: sid });
    assert.equal(v.media_type, 'image/png');
    assert.equal(Buffer.from(v.image, 'base64').subarray(1, 4).toString(), 'PNG');
    assert.equal(v.width, 1280);
    const f = await p.call('page.screenshot', { session_id: sid, image_mode: 'file', full_page: true });
    assert.ok(f.image_ref && existsSync(f.image_ref) && !f.image);
    assert.ok(f.height > 800);
    const clip = await p.call('page.screenshot', {
      session_id: sid,
      clip: { x: 0, y: 0, width: 100, height: 50 },
    });
    assert.deepEqual([clip.width, clip.height], [100, 50]);
    const s = await snap();
    const el = await p.call('page.screenshot', {
      session_id: sid,
      element_ref: refOf(s.elements, 'Go'),
      format: 'jpeg',
    });
    assert.equal(el.media_type, 'image/jpeg');
    assert.equal(el.mode, 'element');
  });

  it('history, keys, select, hover, scroll, upload', async () => {
    await open();
    await p.call('page.click', { session_id: sid, selector: '#next' });
    await p.call('page.wait', { session_id: sid, url_matches: '**/second.html' });
    const back = await p.call('page.go_back', { session_id: sid });
    assert.equal(back.title, 'Provider test');
    const fwd = await p.call('page.go_forward', { session_id: sid });
    assert.equal(fwd.title, 'Second');
    const rel = await p.call('page.reload', { session_id: sid });
    assert.equal(rel.title, 'Second');
    await p.call('page.go_back', { session_id: sid });
    await p.call('page.click', { session_id: sid, selector: '#name' });
    const pr = await p.call('page.press', { session_id: sid, key: 'Enter' });
    assert.equal(pr.pressed, true);
    assert.equal(await outText(), 'submitted ');
    const sel = await p.call('page.select', { session_id: sid, selector: '#pick', labels: ['Cherry'] });
    assert.equal(sel.selected, true);
    const h = await p.call('page.hover', { session_id: sid, selector: '#hover' });
    assert.equal(h.hovered, true);
    assert.equal(await outText(), 'hovered');
    const sc = await p.call('page.scroll', { session_id: sid, dy: 600 });
    assert.equal(sc.scrolled, true);
    const file = join(home.dir, 'upload.txt');
    writeFileSync(file, 'hi');
    const up = await p.call('upload.set_files', { session_id: sid, selector: '#upload', files: [file] });
    assert.equal(up.set, true);
    assert.equal(up.files, 1);
    assert.equal(await outText(), 'files 1');
    // The upload operation's receipt: which input, what it reads back, whether the page listens.
    const u = up.receipt.upload;
    assert.equal(up.receipt.action, 'set_files');
    assert.equal(u.element_ref, up.receipt.target.element_ref);
    assert.equal(u.files_length, 1);
    assert.deepEqual(u.file_names, ['upload.txt']);
    assert.equal(u.consumed, 'listened');
    assert.equal(u.listener_detection, 'cdp');
    assert.ok(u.listeners.events.includes('change'), JSON.stringify(u.listeners));
    assert.equal(u.matched, 1);
    assert.equal(u.input.multiple, false);
  });

  it('tabs, popups and dialogs (with events)', async () => {
    await open();
    const first = (await p.call('tab.list', { session_id: sid })).tabs[0].page_id;
    await p.call('page.click', { session_id: sid, selector: '#popup' });
    const pop = await p.waitEvent((e) => e.event === 'page.popup');
    assert.ok(pop);
    assert.equal(pop.payload.opener_page_id, first);
    const list = await p.call('tab.list', { session_id: sid });
    assert.equal(list.tabs.length, 2);
    assert.ok(list.tabs.every((t: { tab_id: string; page_id: string }) => t.tab_id === t.page_id));
    const np = await p.call('page.open', {
      session_id: sid,
      url: `${server.url}/fixtures/provider/second.html`,
      new_page: true,
      foreground: false,
    });
    assert.equal(np.new_page, true);
    assert.notEqual(np.page_id, first);
    const both = await p.request('page.open', {
      session_id: sid,
      page_id: first,
      new_page: true,
      url: index,
    });
    assert.ok(!both.ok && both.error.code === 'invalid_request');
    assert.equal(
      (await p.call('tab.list', { session_id: sid })).active_page_id,
      first,
      'foreground: false keeps the current page',
    );
    await p.call('tab.close', { session_id: sid, page_id: np.page_id });
    const nt = await p.call('tab.new', {
      session_id: sid,
      url: `${server.url}/fixtures/provider/second.html`,
    });
    assert.equal(nt.title, 'Second');
    assert.equal(nt.active, true);
    const act = await p.call('tab.activate', { session_id: sid, tab_id: first });
    assert.equal(act.active, true);
    const closed = await p.call('tab.close', { session_id: sid, page_id: pop.payload.page_id });
    assert.equal(closed.closed, true);
    await p.call('tab.close', { session_id: sid, page_id: nt.page_id });
    assert.equal((await p.call('tab.list', { session_id: sid })).tabs.length, 1);
    const gone = await p.request('page.snapshot', { session_id: sid, page_id: nt.page_id });
    assert.ok(!gone.ok && gone.error.code === 'page_not_found');

    await p.call('page.click', { session_id: sid, selector: '#alert' });
    const dlg = await p.waitEvent((e) => e.event === 'page.dialog');
    assert.ok(dlg);
    assert.equal(dlg.payload.type, 'alert');
    assert.equal(dlg.payload.message, 'hello there');
    const pol = await p.call('tabwright.dialog.set_policy', { session_id: sid, policy: { alert: 'hold' } });
    assert.equal(pol.policy.alert, 'hold');
    await p.call('page.click', { session_id: sid, selector: '#alert' });
    const handled = await p.call('tabwright.dialog.handle', { session_id: sid, accept: true });
    assert.equal(handled.dialog.state, 'accepted');
    await p.call('tabwright.dialog.set_policy', { session_id: sid, policy: 'accept' });
  });

  it('downloads, console, storage, cookies, network, eval', async () => {
    await open();
    await p.call('page.click', { session_id: sid, selector: '#dl' });
    const done = await p.call('download.wait', { session_id: sid, timeout_ms: 10_000 });
    assert.equal(done.download.state, 'completed');
    assert.equal(readFileSync(done.download.path, 'utf8'), 'some notes\n');
    const ev = await p.waitEvent((e) => e.event === 'download.completed');
    assert.equal(ev?.payload.download_id, done.download.download_id);
    const dl = await p.call('download.list', { session_id: sid });
    assert.equal(dl.downloads.length, 1);

    await p.call('page.click', { session_id: sid, selector: '#log' });
    const con = await p.call('console.list', { session_id: sid });
    assert.ok(con.entries.some((e: { text: string }) => e.text === 'hello console'));
    const st = await p.call('storage.get', { session_id: sid, key: 'k' });
    assert.equal(st.value, 'v');
    const all = await p.call('storage.get', { session_id: sid, area: 'local' });
    assert.deepEqual(all.items, { k: 'v' });
    const ck = await p.call('cookie.list', { session_id: sid });
    assert.ok(ck.cookies.some((c: { name: string }) => c.name === 'c'));
    const net = await p.call('network.list', { session_id: sid, filter: 'index.html' });
    assert.ok(net.requests.some((r: { status: number }) => r.status === 200));

    const e1 = await p.call('page.eval', { session_id: sid, script: '1 + 2' });
    assert.deepEqual([e1.value, e1.type], [3, 'number']);
    const e2 = await p.call('page.eval', { session_id: sid, script: '(a, b) => a * b', args: [6, 7] });
    assert.equal(e2.value, 42);
    const e3 = await p.request('page.eval', { session_id: sid, script: 'throw new Error("boom")' });
    assert.ok(!e3.ok && e3.error.code === 'invalid_request' && e3.error.details.reason === 'script_error');
  });

  it('custom methods: snapshot diff, act, blocked requests', async () => {
    await open();
    const d0 = await p.call('tabwright.snapshot_diff', { session_id: sid });
    assert.equal(typeof d0.full, 'boolean');
    await p.call('page.click', { session_id: sid, selector: '#go' });
    const d1 = await p.call('tabwright.snapshot_diff', { session_id: sid });
    assert.equal(d1.full, false);
    assert.ok(d1.changed.length + d1.added.length + d1.removed.length > 0);
    const fill = await p.call('tabwright.act', {
      session_id: sid,
      selector: '#name',
      action: 'fill',
      value: 'Lin',
    });
    assert.equal(fill.verified, true);
    const b = await p.call('tabwright.blocked_requests', { session_id: sid });
    assert.deepEqual(b.blocked, []);
  });

  it('frames: tabwright.frames lists them; frame_id and nth aim selector targets', async () => {
    await p.call('page.open', { session_id: sid, url: `${server.url}/fixtures/http/frame-targets.html` });
    const { frames } = await p.call('tabwright.frames', { session_id: sid });
    assert.equal(frames.length, 2);
    assert.equal(frames[0].parent_id, null);
    const child = frames[1];
    assert.equal(child.name, 'child');
    assert.match(child.url, /frame-child\.html$/);
    assert.equal(child.allowed, true);
    const status = (frame?: string) =>
      p.call('page.eval', {
        session_id: sid,
        script: frame
          ? "document.querySelector('iframe').contentDocument.getElementById('status').textContent"
          : "document.getElementById('status').textContent",
      });
    // #go exists only in the child: without frame_id it is not found in the main document.
    const miss = await p.request('page.click', { session_id: sid, selector: '#go' });
    assert.equal(miss.ok, false);
    await p.call('page.click', { session_id: sid, selector: '#go', frame_id: child.frame_id });
    assert.equal((await status('child')).value, 'child clicked');
    // Two .twin buttons: ambiguous without nth, the second one with nth 1.
    const twin = await p.request('page.click', { session_id: sid, selector: '.twin' });
    assert.equal(twin.ok, false);
    await p.call('page.click', { session_id: sid, selector: '.twin', nth: 1 });
    assert.equal((await status()).value, 'twin 2');
    const bad = await p.request('page.click', {
      session_id: sid,
      element_ref: 'e1',
      frame_id: child.frame_id,
    });
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.equal(bad.error.details.field, 'frame_id');
  });

  it('allowed_origins are enforced for sessions made through the door', async () => {
    const s = await p.call('session.ensure', { allowed_origins: [server.url] });
    const ok = await p.call('page.open', { session_id: s.session_id, url: index });
    assert.equal(ok.status, 200);
    const denied = await p.request('page.open', {
      session_id: s.session_id,
      url: `${server.altUrl}/fixtures/provider/index.html`,
    });
    assert.ok(!denied.ok && denied.error.code === 'permission_denied');
    await p.call('session.close', { session_id: s.session_id });
  });

  it('provider.verify runs a real end-to-end check', async () => {
    const v = await p.call('provider.verify', {});
    assert.equal(v.ok, true, JSON.stringify(v.checks));
    assert.equal(v.status.availability, 'ready');
  });
});
