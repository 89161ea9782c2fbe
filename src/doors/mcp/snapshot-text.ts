import type { SnapshotResult } from '../../snapshot/index.js';
import { q } from './render.js';

/** Lines containing `needle` (case-insensitive) with the lines of their ancestors, by indentation. */
export function findLines(text: string, needle: string): string {
  const lines = text.split('\n');
  const want = needle.toLowerCase();
  const keep = new Set<number>();
  const indent = (l: string) => l.length - l.trimStart().length;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.toLowerCase().includes(want)) continue;
    keep.add(i);
    let level = indent(lines[i]!);
    for (let j = i - 1; j >= 0 && level > 0; j--) {
      const l = indent(lines[j]!);
      if (l < level) {
        keep.add(j);
        level = l;
      }
    }
  }
  if (!keep.size) return `no line contains ${q(needle)}`;
  return [...keep]
    .sort((a, b) => a - b)
    .map((i) => lines[i]!)
    .join('\n');
}

/** Header line (page, URL, title), then the agent text (or its diff, or the lines matching `find`). */
export function renderSnapshot(snap: SnapshotResult, find?: string): string {
  const head = `${snap.page_id}: ${snap.url} ${q(snap.title)}`;
  const body = find ? findLines(snap.full_text ?? snap.text, find) : snap.text;
  const notes: string[] = [];
  if (snap.truncated) {
    const o = snap.omitted;
    notes.push(
      `(cut${o?.lines ? `: ${o.lines} lines omitted` : ''}; narrow with scope_ref, max_depth, viewport or find)`,
    );
  }
  return [head, body, ...notes].join('\n');
}
