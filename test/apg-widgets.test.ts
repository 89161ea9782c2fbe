import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from '../src/index.js';
import { type NodeStates, type SnapshotNode, walkModel } from '../src/snapshot/model.js';
import { engineTestEnv } from './helpers/engine.js';

/**
 * The WAI-ARIA APG widgets (test/fixtures/pages/apg/widgets.html: our own markup after the
 * patterns' examples) are found by role and exact visible name, as getByRole finds them, in
 * every state they pass through; icons drawn with CSS content: url(…) and aria-hidden check
 * marks never enter a name, a nested group never enters its treeitem's name, and the SVG slider
 * (<svg role="none"><g role="slider">) is there.
 */
const { server, session } = await engineTestEnv();

async function found(
  page: Page,
  role: string,
  name: string,
  states?: Partial<NodeStates>,
): Promise<SnapshotNode> {
  const at = await page.locate({ role, name, exact: true });
  const snap = await page.snapshot({ max_chars: 1_000_000 });
  const node = [...walkModel(snap.model)].find((n) => n.element_ref === at.element_ref);
  assert.ok(node, `${role} "${name}" located but not in the model:\n${snap.text}`);
  assert.equal(node.name, name, snap.text);
  for (const [k, v] of Object.entries(states ?? {}))
    assert.equal(node.states?.[k as keyof NodeStates], v, `${role} "${name}" ${k}:\n${snap.text}`);
  return node;
}

const click = (page: Page, role: string, name: string) =>
  page.act({ role, name, exact: true }, { action: 'click' });

test('APG widgets: found by role and exact name in every state', async () => {
  const page = await session.newPage();
  await page.open(`${server.url}/fixtures/apg/widgets.html`);

  // Combobox with a listbox popup.
  await found(page, 'combobox', 'State', { expanded: false });
  await click(page, 'button', 'States');
  await found(page, 'combobox', 'State', { expanded: true });
  await found(page, 'listbox', 'States');
  await found(page, 'option', 'Alaska');

  // Menu button.
  await found(page, 'button', 'Actions', { expanded: false });
  await click(page, 'button', 'Actions');
  await found(page, 'button', 'Actions', { expanded: true });
  await found(page, 'menu', 'Actions');
  await found(page, 'menuitem', 'Action 2');

  // Tabs.
  await found(page, 'tablist', 'Danish Composers');
  await found(page, 'tab', 'Carl Andersen', { selected: false });
  await click(page, 'tab', 'Carl Andersen');
  await found(page, 'tab', 'Carl Andersen', { selected: true });
  await found(page, 'tab', 'Maria Ahlefeldt', { selected: false });
  await found(page, 'tabpanel', 'Carl Andersen');

  // Modal dialog.
  await click(page, 'button', 'Add Delivery Address');
  await found(page, 'dialog', 'Add Delivery Address');
  await found(page, 'textbox', 'Street:');
  await click(page, 'button', 'Cancel');

  // Listbox: the aria-hidden ✓ drawn by ::before is not in the options' names.
  await found(page, 'listbox', 'Transuranium elements:');
  await found(page, 'option', 'Curium', { selected: true });
  await found(page, 'option', 'Neptunium', { selected: false });
  await click(page, 'option', 'Neptunium');
  await found(page, 'option', 'Neptunium', { selected: true });

  // Treeview: the expanded item is named by its own label, not its group.
  await found(page, 'tree', 'File Viewer');
  await found(page, 'treeitem', 'Projects', { expanded: false });
  await click(page, 'treeitem', 'Projects');
  await found(page, 'treeitem', 'Projects', { expanded: true });
  await found(page, 'treeitem', 'project-2.docx');

  // Sliders: an HTML one and the SVG one inside <svg role="none">.
  assert.equal((await found(page, 'slider', 'Red')).value, '128');
  await click(page, 'slider', 'Red');
  assert.equal((await found(page, 'slider', 'Red')).value, '129');
  assert.equal((await found(page, 'slider', 'Temperature')).value, '25.0°C');
  await click(page, 'slider', 'Temperature');
  assert.equal((await found(page, 'slider', 'Temperature')).value, '26.0°C');

  // Spinbutton.
  assert.equal((await found(page, 'spinbutton', 'Day')).value, '1');
  await click(page, 'button', 'Next Day');
  assert.equal((await found(page, 'spinbutton', 'Day')).value, '2');

  // Mixed checkbox: its icon (content: url(data:…)) changes with the state, the name does not.
  await found(page, 'checkbox', 'All condiments', { checked: 'mixed' });
  await click(page, 'checkbox', 'All condiments');
  await found(page, 'checkbox', 'All condiments', { checked: true });
  await click(page, 'checkbox', 'All condiments');
  await found(page, 'checkbox', 'All condiments', { checked: false });
  await found(page, 'checkbox', 'Lettuce', { checked: false });

  // Disclosure (FAQ).
  const q = 'What do I do if I lose my parking permit?';
  await found(page, 'button', q, { expanded: false });
  await click(page, 'button', q);
  await found(page, 'button', q, { expanded: true });
  await page.close();
});
