import { z } from 'zod';

/**
 * A parameter problem in this door's language: zod's own (English) default messages are rendered
 * again with its Chinese locale, and the type names it leaves in English are translated. A message
 * a schema wrote itself is kept as it is.
 */

const zh = z.locales.zhCN().localeError;
const en = z.locales.en().localeError;

const TYPES: Record<string, string> = {
  string: '字符串',
  number: '数字',
  boolean: '布尔值',
  object: '对象',
  array: '数组',
  undefined: '未定义',
  bigint: '大整数',
  int: '整数',
};
const TYPE_WORD = new RegExp(`(?<=[期望收 ])(${Object.keys(TYPES).join('|')})\\b`, 'g');

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

export function issueInChinese(issue: z.core.$ZodIssue, raw: unknown): string {
  // The issue carries no input (zod drops it); the raw parameters have it, for "received …".
  const full = { ...issue, input: valueAt(raw, issue.path) } as Parameters<typeof en>[0];
  const fallback = (m: ReturnType<typeof en>) => (typeof m === 'string' ? m : (m?.message ?? ''));
  if (issue.message !== fallback(en(full))) return issue.message;
  return fallback(zh(full)).replace(TYPE_WORD, (w) => TYPES[w] ?? w);
}
