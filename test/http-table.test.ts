import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { HTTP_TABLE, pageChanging } from '../src/doors/http/methods.js';
import { OPERATIONS } from '../src/engine/api.js';
import { type DoorHarness, doorHarness, type Json } from './helpers/http.js';

// The HTTP door's table and what is generated from it: the evidence set, list_methods,
// describe_method and the method reference of docs/http-api.md.

/** The reference's PAGE_CHANGING set (http-command-api.md §7.1, 56 names), copied as it lists them. */
const REFERENCE_PAGE_CHANGING = `bring_to_front, check_element_by_index, clear_text,
click_element_by_index, click_element_by_role, click_element_by_selector, click_element_by_text,
close_modal, close_other_tabs, close_tab, double_click_element_by_index, drag_element_by_index,
execute_js, focus_element_by_index, go_back, go_forward, go_to_url, hover_and_click,
hover_element_by_index, input_text, input_text_by_label, input_text_by_selector, key_down, key_up,
mouse_click, mouse_click_by_selector, mouse_down, mouse_move, mouse_up, mouse_wheel, navigate, new_tab,
press_key, reload, scroll, scroll_to_text, select_dropdown_option, send_keys, set_cookie,
set_credentials, set_local_storage, set_media, set_viewport, switch_tab, switch_tab_by_url, type_text,
uncheck_element_by_index, upload_file, wait, wait_for_element, wait_for_function, wait_for_idle,
wait_for_load, wait_for_stable, wait_for_text, wait_for_url`
  .split(/[\s,]+/)
  .filter(Boolean)
  .sort();

describe('the HTTP method table', () => {
  test('the page-changing rows are exactly the reference set (56 names)', () => {
    assert.equal(REFERENCE_PAGE_CHANGING.length, 56);
    assert.deepEqual(pageChanging(), REFERENCE_PAGE_CHANGING);
  });

  test('every row has a summary, reply fields, an object schema and registered operations', () => {
    // 122 reference names, get_blocked_requests (an extension), describe_method, and the batch entry.
    assert.equal(HTTP_TABLE.names().length, 125);
    for (const m of HTTP_TABLE.list()) {
      assert.ok(m.summary.trim().length > 4, `${m.name}: summary`);
      assert.ok(!m.summary.includes('\n'), `${m.name}: one line`);
      assert.ok(Object.keys(m.meta.reply).length > 0, `${m.name}: reply fields`);
      assert.ok(m.params instanceof z.ZodObject, `${m.name}: params are an object`);
      for (const op of m.ops)
        assert.equal(OPERATIONS.get(op.name), op, `${m.name}: ${op.name} is registered`);
    }
  });
});

describe('list_methods and describe_method on the wire', () => {
  let h: DoorHarness;
  before(async () => {
    h = await doorHarness();
  });
  after(async () => h?.close());

  test('list_methods gives one line per method, from the rows', async () => {
    const d = await h.ok(undefined, 'list_methods', { filter: 'switch_tab' });
    assert.deepEqual(d.methods, ['switch_tab', 'switch_tab_by_url']);
    assert.deepEqual(Object.keys(d.descriptions), d.methods);
    assert.equal(d.descriptions.switch_tab, HTTP_TABLE.get('switch_tab')!.summary);
    const all = await h.ok(undefined, 'list_methods');
    assert.equal(Object.keys(all.descriptions).length, all.total);
    assert.ok(all.methods.includes('describe_method'));
  });

  test('describe_method: parameters as JSON Schema, reply fields, id rule, capture, operations', async () => {
    const click = await h.ok(undefined, 'describe_method', { name: 'click_element_by_index' });
    assert.equal(click.id, 'required');
    assert.equal(click.lock, true);
    assert.equal(click.pageChanging, true);
    assert.equal(click.receipt, true);
    assert.equal(click.effect, 'act');
    assert.deepEqual(click.operations, ['page.click']);
    assert.deepEqual(click.params.required, ['index']);
    assert.deepEqual(Object.keys(click.params.properties).sort(), ['index', 'mode', 'timeoutMs']);
    for (const f of ['changed', 'urlAfter', 'hit', 'seq', 'screenshot']) assert.ok(click.reply[f], f);

    const url = await h.ok(undefined, 'describe_method', { name: 'get_url' });
    assert.equal(url.pageChanging, false);
    assert.deepEqual(Object.keys(url.reply), ['url']);
    const start = (await h.ok(undefined, 'describe_method', { name: 'start' })) as Json;
    assert.equal(start.id, 'optional');
    assert.equal((await h.ok(undefined, 'describe_method', { name: 'list_methods' })).id, 'none');
  });

  test('describe_method refuses an unknown name with suggestions, and a missing one in the door words', async () => {
    const r = await h.fails(undefined, 'describe_method', { name: 'get_tab' });
    assert.equal(r.status, 400);
    assert.match(
      r.json.msg,
      /^describe_method 失败：参数 name 无效：不支持的方法：get_tab，你是不是想用 .*get_tabs/,
    );
    assert.ok(r.json.data.suggestions.includes('get_tabs'));
    const missing = await h.fails(undefined, 'describe_method', {});
    assert.equal(missing.json.msg, 'describe_method 失败：缺少参数 name');
    assert.equal(missing.status, 400);
  });
});
