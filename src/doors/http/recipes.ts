import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Recipes (reference §13.6): JSON files `<name>.json` in the recipes folder,
 * shaped `{name, description, params, defaults, commands}`, run as a batch
 * after `{{var}}` substitution. Recipes are only ever run by name.
 */

export interface Recipe {
  name: string;
  description: string;
  params: unknown;
  defaults: Record<string, unknown>;
  commands: unknown[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class RecipeError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

export function validRecipeName(name: string): boolean {
  return NAME.test(name) && !name.includes('..');
}

/** Parses and checks one recipe file's text; `name` defaults to the file name. */
export function parseRecipe(text: string, fileName: string): Recipe {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new RecipeError(`配方 ${fileName} 不是合法 JSON：${(err as Error).message}`, 'name');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new RecipeError(
      `配方 ${fileName} 顶层必须是对象 {name, description, params, defaults, commands}`,
      'name',
    );
  }
  const r = raw as Record<string, unknown>;
  if (!Array.isArray(r.commands) || r.commands.length === 0) {
    throw new RecipeError(`配方 ${fileName} 缺少 commands 数组`, 'name');
  }
  const defaults = r.defaults;
  if (
    defaults !== undefined &&
    (defaults === null || typeof defaults !== 'object' || Array.isArray(defaults))
  ) {
    throw new RecipeError(`配方 ${fileName} 的 defaults 必须是对象`, 'name');
  }
  return {
    name: typeof r.name === 'string' && r.name ? r.name : fileName,
    description: typeof r.description === 'string' ? r.description : '',
    params: r.params ?? [],
    defaults: (defaults as Record<string, unknown>) ?? {},
    commands: r.commands,
  };
}

export async function loadRecipe(dir: string, name: string): Promise<Recipe> {
  if (!validRecipeName(name)) throw new RecipeError(`配方名无效：${name}（只允许字母、数字、. _ -）`, 'name');
  let text: string;
  try {
    text = await readFile(join(dir, `${name}.json`), 'utf8');
  } catch {
    throw new RecipeError(`没有这个配方：${name}（配方目录 ${dir}）`, 'name');
  }
  return parseRecipe(text, name);
}

export async function listRecipes(
  dir: string,
): Promise<{ recipes: (Recipe & { file: string })[]; errors: string[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return { recipes: [], errors: [] };
  }
  const recipes: (Recipe & { file: string })[] = [];
  const errors: string[] = [];
  for (const n of names) {
    const base = n.slice(0, -'.json'.length);
    if (!validRecipeName(base)) continue;
    try {
      recipes.push({ ...parseRecipe(await readFile(join(dir, n), 'utf8'), base), file: n });
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  return { recipes, errors };
}

const PLACEHOLDER = /(["']?)\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}\1/g;

/**
 * Substitutes `{{name}}` in every string of `value` (recursively):
 * - a string that is exactly one placeholder becomes the variable's value, typed (number, object, …);
 * - a quoted placeholder inside a string (`"{{sel}}"` or `'{{sel}}'`, e.g. in a script) is replaced,
 *   quotes included, by the JSON encoding of the value, so scripts stay valid;
 * - any other placeholder inside a string gets the value as text (strings raw, others as JSON).
 * Unknown names are collected in `missing`; the text is left as it was.
 */
export function substitute(
  value: unknown,
  vars: Record<string, unknown>,
  missing = new Set<string>(),
): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}$/.exec(value);
    if (whole) {
      const k = whole[1]!;
      if (Object.hasOwn(vars, k)) return vars[k];
      missing.add(k);
      return value;
    }
    return value.replace(PLACEHOLDER, (m, quote: string, k: string) => {
      if (!Object.hasOwn(vars, k)) {
        missing.add(k);
        return m;
      }
      const v = vars[k];
      if (quote) return JSON.stringify(v) ?? 'null';
      return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars, missing));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, substitute(v, vars, missing)]),
    );
  }
  return value;
}
