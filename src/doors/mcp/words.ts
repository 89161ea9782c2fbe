import { opWords, refWords, rewrite, type WordTable } from '../kit/index.js';
import { ALL_TOOLS } from './table.js';
import { WaitFields } from './tools.js';

/**
 * Engine text in this door's words: its tool names (read off the tool table for the operations
 * one tool runs) and its parameters (`ref`, not `element_ref`). Built on first use: the table
 * imports the renderer that uses these words.
 */
const OWN: WordTable = [
  ...refWords('take a snapshot', 'a snapshot'),
  [/\bdetails\.(covered_by|conditions|candidates)\b/g, '$1 (below)'],
  [/\btab\.new or page\.open\b/g, 'tabs (action "new") or navigate'],
  [/\bpage\.open\b/g, 'navigate'],
  [/\bpage\.pendingDialog\(\)/g, 'the dialog tool'],
  [/\bdownload\.list\b/g, 'downloads'],
  [/\bthe method's input_schema\b/g, "the tool's inputSchema"],
];

let table: WordTable | undefined;

export function mcpWords(text: string): string {
  table ??= [
    ...OWN,
    // The engine refuses a wait without conditions listing all of its own; this tool takes fewer.
    [
      /Pass at least one wait condition \([^)]*\)\./g,
      `wait: give at least one condition (${Object.keys(WaitFields).join(', ')}).`,
    ],
    ...opWords(ALL_TOOLS),
  ];
  return rewrite(text, table);
}
