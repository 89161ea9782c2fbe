import { z } from 'zod';
import type { Receipt } from '../actions/types.js';
import { readText } from '../content.js';
import { Deadline, type OperationOptions } from '../deadline.js';
import { TabwrightError } from '../errors.js';
import type { Page } from '../page.js';
import { ActOptions } from '../schemas.js';
import { findInText } from '../semantics/find-text.js';
import { FIELD_ATTRIBUTES, formFields } from '../semantics/forms.js';
import { renderMarkdown } from '../semantics/markdown.js';
import { modalLayers } from '../semantics/modal-layers.js';
import { findModals, type Modal, pickModalButton } from '../semantics/modals.js';
import { tableFigures, tablesOf } from '../semantics/tables.js';
import { defineOp } from './define.js';

/**
 * Page understanding: what a page's model means beyond its elements (modals, form fields, tables,
 * markdown, text search), for every door. The implementations are pure functions over the snapshot
 * model (src/engine/semantics/); these operations take the snapshot they need.
 */

const InFrame = z
  .string()
  .min(1)
  .optional()
  .describe('An engine frame id (page frames); the main frame when absent.');

/** The model of the main document or of one frame, optionally scoped, with a large text budget. */
async function documentModel(
  page: Page,
  o: { selector?: string; frame?: string; urls?: boolean },
  opts: OperationOptions,
) {
  const snap = await page.snapshot(
    {
      include_frames: false,
      include_urls: o.urls ?? false,
      scope_selector: o.selector,
      scope_frame: o.frame,
      max_chars: 2_000_000,
    },
    opts,
  );
  return snap.model;
}

/** Modals by role (the page model, iframes included), then modal layers without a role (main frame). */
async function scanModals(page: Page, opts: OperationOptions): Promise<Modal[]> {
  const byRole = findModals((await page.snapshot({ include_frames: true }, opts)).model);
  return [...byRole, ...(await modalLayers(page, Deadline.from(opts)))];
}

export const modals = defineOp({
  name: 'page.modals',
  scope: 'page',
  effect: 'read',
  summary:
    'DOM modals (role dialog / alertdialog, iframes included; layers without a role: aria-modal, modal-like classes, a fixed layer covering most of the viewport) with their title, text, buttons, and which one blocks the page.',
  input: z.object({}).strict(),
  run: (page, _i, opts) => scanModals(page, opts),
});

export const closeModal = defineOp({
  name: 'page.close_modal',
  scope: 'page',
  effect: 'act',
  summary:
    'Close a DOM modal with a trusted click on its closing button (or the named one) and check that the modal count dropped.',
  input: z
    .object({
      title: z.string().optional().describe('The modal whose title or text contains this (wins over which).'),
      which: z
        .enum(['top', 'first'])
        .optional()
        .describe('top (default): the blocking one; first: the first.'),
      button: z
        .string()
        .optional()
        .describe('The label of the button to click; a closing button when absent.'),
      observe_ms: ActOptions.observe_ms,
      observe_min_ms: ActOptions.observe_min_ms,
    })
    .strict(),
  async run(page, i, opts) {
    // One deadline for the scan, the click and the rescan.
    const d = Deadline.from(opts);
    const left = (): OperationOptions => ({ timeoutMs: Math.max(1, d.remaining()), signal: d.signal });
    const before = await scanModals(page, left());
    const { modal, button } = pickModalButton(before, i);
    if (!modal)
      return { closed: false, count_before: before.length, count_after: before.length, modal: null };
    if (!button?.element_ref && i.button === undefined) {
      // No closing button: Escape, then a click on the mask around the content (as a person would).
      const w = { observe_ms: i.observe_ms, observe_min_ms: i.observe_min_ms };
      let receipt: Receipt = await page.act(
        undefined,
        { action: 'press', key: 'Escape' },
        { ...left(), ...w },
      );
      let after = await scanModals(page, left());
      let closedBy: 'escape' | 'mask' = 'escape';
      if (after.length >= before.length && modal.mask_point) {
        receipt = await page.act(modal.mask_point, { action: 'click' }, { ...left(), ...w });
        after = await scanModals(page, left());
        closedBy = 'mask';
      }
      return {
        closed: after.length < before.length,
        count_before: before.length,
        count_after: after.length,
        modal,
        clicked: closedBy === 'mask' ? '(mask)' : '(Escape)',
        closed_by: closedBy,
        receipt,
      };
    }
    if (!button?.element_ref) {
      throw new TabwrightError(
        'element_not_found',
        `The modal has no ${i.button ? `button "${i.button}"` : 'closing button'}; its buttons: ${modal.buttons.map((b) => b.name).join(', ') || 'none'}. Name one with button.`,
        {
          details: {
            reason: 'modal_button_not_found',
            button: i.button,
            buttons: modal.buttons.map((b) => b.name),
          },
        },
      );
    }
    const receipt: Receipt = await page.act(
      { element_ref: button.element_ref },
      { action: 'click' },
      { ...left(), observe_ms: i.observe_ms, observe_min_ms: i.observe_min_ms },
    );
    const after = await scanModals(page, left());
    return {
      closed: after.length < before.length,
      count_before: before.length,
      count_after: after.length,
      modal,
      clicked: button.name,
      closed_by: 'button' as const,
      receipt,
    };
  },
});

export const formState = defineOp({
  name: 'page.form_fields',
  scope: 'page',
  effect: 'read',
  summary:
    "The page's form fields (iframes included, or under a selector): label, type, value (secrets redacted), checked and states.",
  input: z.object({ selector: z.string().min(1).optional() }).strict(),
  run: async (page, i, opts) => {
    const snap = await page.snapshot(
      { viewport: false, include_frames: true, scope_selector: i.selector, attributes: FIELD_ATTRIBUTES },
      opts,
    );
    return formFields(snap.model);
  },
});

export const tables = defineOp({
  name: 'page.tables',
  scope: 'page',
  effect: 'read',
  summary: 'The tables of the document (or a frame): rows, columns, header and data rows, images, a preview.',
  input: z.object({ frame: InFrame }).strict(),
  run: async (page, i, opts) =>
    tablesOf(await documentModel(page, { frame: i.frame }, opts)).map(tableFigures),
});

export const markdown = defineOp({
  name: 'page.markdown',
  scope: 'page',
  effect: 'read',
  summary:
    'The document (or a frame, a selector, one table) as markdown: headings, lists, links, tables as GFM tables.',
  input: z
    .object({
      selector: z.string().min(1).optional(),
      frame: InFrame,
      table: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Only the table with this 0-based index (page tables; under the selector when given).'),
      links: z.boolean().optional().describe('Links as [text](url), and the list of them.'),
    })
    .strict(),
  run: async (page, i, opts) => {
    const links = i.links ?? false;
    let root = await documentModel(page, { selector: i.selector, frame: i.frame, urls: links }, opts);
    if (i.table !== undefined) {
      const all = tablesOf(root);
      const t = all[i.table];
      if (!t) {
        throw new TabwrightError(
          'element_not_found',
          `No table ${i.table}: the document has ${all.length} (0-based). List them with page tables.`,
          { details: { reason: 'no_such_table', total: all.length } },
        );
      }
      root = t;
    }
    const md = renderMarkdown(root, { links });
    return { markdown: md.text, links: md.links };
  },
});

export const findText = defineOp({
  name: 'page.find_text',
  scope: 'page',
  effect: 'read',
  summary:
    'Occurrences of a string or a regular expression in the visible text (of a selector, of a frame), with line and context.',
  input: z
    .object({
      text: z.string().min(1),
      regex: z.boolean().optional(),
      context_chars: z.number().int().min(0).max(2000).optional(),
      max_matches: z.number().int().min(1).max(1000).optional(),
      selector: z.string().min(1).optional(),
      frame: InFrame,
    })
    .strict(),
  run: async (page, i, opts) => {
    const search = {
      text: i.text,
      regex: i.regex,
      context_chars: i.context_chars,
      max_matches: i.max_matches,
    };
    // An invalid pattern fails before the page is read.
    findInText('', search);
    const read = await readText(page, i.selector, { ...opts, frame: i.frame });
    return findInText(read.content, search);
  },
});
