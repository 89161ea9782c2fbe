import { TabwrightError } from '../errors.js';

/**
 * Occurrences of a literal string or a regular expression in a text (the page's visible text):
 * each with its offset, line number and context. Matches do not overlap; empty matches are skipped.
 */

export interface TextMatch {
  /** Character offset in the text. */
  index: number;
  /** 1-based line number. */
  line: number;
  match: string;
  before: string;
  after: string;
}

export interface TextSearch {
  text: string;
  regex?: boolean;
  context_chars?: number;
  max_matches?: number;
}

/** The search's pattern; an invalid regular expression is invalid_request (reason invalid_regex). */
export function searchPattern(s: TextSearch): RegExp {
  if (!s.regex) return new RegExp(s.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
  try {
    return new RegExp(s.text, 'g');
  } catch (err) {
    const cause = (err as Error).message;
    throw new TabwrightError('invalid_request', `text is not a valid regular expression: ${cause}`, {
      details: { field: 'text', reason: 'invalid_regex', cause },
    });
  }
}

export function findInText(
  haystack: string,
  s: TextSearch,
): { match_count: number; matches: TextMatch[]; text_length: number } {
  const re = searchPattern(s);
  const around = s.context_chars ?? 80;
  const max = s.max_matches ?? 20;
  const matches: TextMatch[] = [];
  let count = 0;
  for (const m of haystack.matchAll(re)) {
    if (m[0] === '') continue;
    count++;
    if (matches.length < max) {
      const at = m.index ?? 0;
      matches.push({
        index: at,
        line: haystack.slice(0, at).split('\n').length,
        match: m[0],
        before: haystack.slice(Math.max(0, at - around), at),
        after: haystack.slice(at + m[0].length, at + m[0].length + around),
      });
    }
  }
  return { match_count: count, matches, text_length: haystack.length };
}
