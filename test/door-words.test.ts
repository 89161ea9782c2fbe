import assert from 'node:assert/strict';
import { test } from 'node:test';
import { opWords, rewrite } from '../src/doors/kit/index.js';
import { ALL_TOOLS } from '../src/doors/mcp/table.js';
import { mcpWords } from '../src/doors/mcp/words.js';
import { PIPE_TABLE } from '../src/doors/pipe/host/table.js';
import { pipeWords } from '../src/doors/pipe/host/words.js';

// Engine text in each door's words (src/doors/kit/words.ts): an operation one method runs is
// named by that method; one several methods share is left to the door's own rules.

test('opWords: the one method that runs an operation names it; a shared operation is not guessed', () => {
  const table = opWords([
    { name: 'wait', ops: [{ name: 'page.wait' }] },
    { name: 'open', ops: [{ name: 'page.open' }, { name: 'tab.new' }] },
    { name: 'tabs', ops: [{ name: 'tab.new' }, { name: 'tab.list' }] },
  ]);
  assert.equal(rewrite('page.wait: timed out; call tab.list', table), 'wait: timed out; call tabs');
  assert.equal(rewrite('page.open, page.open_x, page.wait.y', table), 'open, page.open_x, page.wait.y');
  assert.equal(rewrite('use tab.new', table), 'use tab.new', 'two methods run tab.new');
});

test("the MCP and pipe doors' words for the engine's most common advice", () => {
  const stale = 'Element ref e4 is stale: gone. Take a new snapshot (page.snapshot) and use a ref from it.';
  const many = 'The selector matched 3 elements, pass nth, or take a snapshot and use an element_ref.';
  const waited =
    'page.wait: not all of text_present held within 900 ms. Read details.conditions for the last observed values.';
  const noPage = 'Session s1 has no open page. Open one with tab.new or page.open.';
  assert.ok(ALL_TOOLS.length > 0 && PIPE_TABLE.list().length > 0);
  const engineWords = /\b(page|tab|download)\.[a-z_]+\b|element_ref|\bnth\b|details\./;
  for (const t of [stale, many, waited, noPage]) assert.doesNotMatch(mcpWords(t), engineWords, mcpWords(t));
  for (const t of [stale, many, waited]) assert.doesNotMatch(pipeWords(t), engineWords, pipeWords(t));
  assert.match(mcpWords(noPage), /tabs \(action "new"\) or navigate/);
  assert.match(pipeWords(stale), /Call getAomSnapshot/);
  assert.match(pipeWords(waited), /^waitForSelector: /);
});
