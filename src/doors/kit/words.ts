/**
 * A door's words for engine text. The engine's messages name its own operations (`page.open`,
 * `tab.list`) and fields (`element_ref`); a door's client knows only the door's methods and
 * parameters, so every engine message, hint and warning a door passes on goes through the door's
 * word table first.
 */
export type WordTable = readonly (readonly [RegExp, string])[];

export function rewrite(text: string, table: WordTable): string {
  return table.reduce((t, [re, to]) => t.replace(re, to), text);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The door's method name for each engine operation that exactly one of its methods runs
 * (`page.open` → `navigate`), read off the door's own table; an operation several methods share
 * is left to the door's hand-written words.
 */
export function opWords(methods: Iterable<{ name: string; ops: readonly { name: string }[] }>): WordTable {
  const users = new Map<string, Set<string>>();
  for (const m of methods)
    for (const op of m.ops) users.set(op.name, (users.get(op.name) ?? new Set()).add(m.name));
  return [...users]
    .filter(([op, by]) => by.size === 1 && !by.has(op))
    .map(([op, by]) => [new RegExp(`\\b${escapeRegExp(op)}\\b(?![._a-z])`, 'g'), [...by][0]!] as const);
}

/**
 * The rules of a door whose targets are a `ref` from its snapshot and a selector, with no `nth`
 * (MCP, the pipe): `take` is how its client takes a snapshot ("take a snapshot", "call
 * getAomSnapshot"), `from` where a ref comes from ("a snapshot", "getAomSnapshot").
 */
export function refWords(take: string, from: string): WordTable {
  return [
    [/, pass nth, or take a snapshot and use an element_ref\./g, `, or ${take} and use a ref.`],
    [
      /; pass exact: true, a context \(an ancestor's name\), or one of the element_refs in details\./g,
      `; use a more specific selector, or a ref from ${from}.`,
    ],
    [/Pick nth below \d+\./g, `Use a more specific selector, or a ref from ${from}.`],
    [/\btarget by element_ref\b/g, 'target by ref'],
    [/\ban element_ref\b/g, 'a ref'],
    [/\belement_refs?\b/g, 'ref'],
  ];
}
