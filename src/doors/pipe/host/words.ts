import { opWords, refWords, rewrite, type WordTable } from '../../kit/index.js';
import { PIPE_TABLE } from './table.js';

/**
 * Engine text in this door's words: its actions (read off the action table for the operations one
 * action runs; `getAomSnapshot` for a snapshot) and its parameters (`ref`, not `element_ref`).
 * Built on first use, after the table has loaded.
 */
const OWN: WordTable = [
  ...refWords('call getAomSnapshot', 'getAomSnapshot'),
  [/\bTake (?:a new|a|another) snapshot\b(?: \(page\.snapshot\))?/g, 'Call getAomSnapshot'],
  [/\btake (?:a new|a|another) snapshot\b(?: \(page\.snapshot\))?/g, 'call getAomSnapshot'],
  // Two actions run page.open (navigate, zombieSpawn): the table alone cannot name it.
  [/\bpage\.open\b/g, 'navigate'],
  [/ Read details\.conditions for the last observed values[;.]/g, ''],
  [/\bdetails\.covered_by\b/g, 'the covering element'],
];

let table: WordTable | undefined;

export function pipeWords(text: string): string {
  table ??= [...OWN, ...opWords(PIPE_TABLE.list())];
  return rewrite(text, table);
}
