/**
 * Unknown-method suggestions (reference §5.3): Levenshtein distance, lowered
 * for names with the same root (identical part after the first underscore)
 * and for names whose underscore tokens contain one another; at most 3.
 */
export function suggestMethods(requested: string, candidates: readonly string[], limit = 3): string[] {
  const req = requested.toLowerCase();
  const threshold = Math.max(2, req.length / 2);
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const cand = name.toLowerCase();
    let score = levenshtein(req, cand);
    const reqRoot = afterFirstUnderscore(req);
    if (reqRoot !== null && reqRoot === afterFirstUnderscore(cand))
      score = Math.min(score, Math.max(1, score - 3));
    if (tokenSubset(req, cand)) score = Math.min(score, 1);
    if (score <= threshold) scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map((s) => s.name);
}

function afterFirstUnderscore(name: string): string | null {
  const i = name.indexOf('_');
  return i < 0 ? null : name.slice(i + 1);
}

function tokenSubset(a: string, b: string): boolean {
  const ta = new Set(a.split('_').filter(Boolean));
  const tb = new Set(b.split('_').filter(Boolean));
  if (ta.size === 0 || tb.size === 0) return false;
  const contains = (big: Set<string>, small: Set<string>) => [...small].every((t) => big.has(t));
  return contains(ta, tb) || contains(tb, ta);
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}
