import { join } from 'node:path';
import { z } from 'zod';
import { BATCH_REPLY, runBatch } from '../batch.js';
import { CommandFailure, type Data, invalidArgument } from '../envelope.js';
import { listRecipes, loadRecipe, RecipeError, substitute } from '../recipes.js';
import { type HttpMethod, type MethodContext, method } from './common.js';

/**
 * list_recipes / run_recipe (reference §13.6). The folder is
 * $TABWRIGHT_RECIPES_DIR, else `<engine home>/recipes`. run_recipe runs the
 * substituted commands through the `commands` batch method.
 */

export function recipesDir(ctx: MethodContext): string {
  return process.env.TABWRIGHT_RECIPES_DIR || join(ctx.engine.home, 'recipes');
}

const listRecipesMethod = method({
  name: 'list_recipes',
  summary: '列出配方目录里的配方（一组预先写好的批量命令）',
  meta: {
    task: 'none',
    reply: {
      count: '配方个数',
      recipes: '配方：name, description, params, defaults, stepCount',
      dir: '配方目录',
      errors: '读不了的配方文件',
    },
  },
  params: z.object({}),
  async run(ctx) {
    const dir = recipesDir(ctx);
    const { recipes, errors } = await listRecipes(dir);
    return {
      count: recipes.length,
      recipes: recipes.map((r) => ({
        name: r.name,
        description: r.description,
        params: r.params,
        defaults: Object.keys(r.defaults).length ? r.defaults : undefined,
        stepCount: r.commands.length,
      })),
      dir,
      errors: errors.length ? errors : undefined,
    };
  },
});

const runRecipe = method({
  name: 'run_recipe',
  summary: '按名字运行一个配方（vars 替换占位符），和 commands 批量的执行与返回一样',
  effect: 'raw',
  meta: {
    task: 'existing',
    reply: { ...BATCH_REPLY, recipe: '配方名', recipeDescription: '配方说明' },
  },
  params: z.object({
    name: z.string().min(1),
    vars: z.record(z.string(), z.unknown()).optional(),
    stopOnError: z.boolean().optional(),
  }),
  async run(ctx, p) {
    let recipe: Awaited<ReturnType<typeof loadRecipe>>;
    try {
      recipe = await loadRecipe(recipesDir(ctx), p.name);
    } catch (err) {
      if (err instanceof RecipeError)
        throw invalidArgument(`run_recipe 失败：${err.message}`, { field: err.field });
      throw err;
    }
    const vars = { ...recipe.defaults, ...(p.vars ?? {}) };
    const missing = new Set<string>();
    const commands = substitute(recipe.commands, vars, missing) as unknown[];
    if (missing.size > 0) {
      throw invalidArgument(
        `run_recipe 失败：缺少参数 vars.${[...missing][0]}（配方 ${recipe.name} 需要：${[...missing].join(', ')}）`,
        {
          field: 'vars',
          missingVars: [...missing],
        },
      );
    }
    const batch = ctx.runStep;
    if (!batch) throw invalidArgument('run_recipe 失败：需要任务 id', { field: 'id' });
    const extra: Data = { recipe: recipe.name, recipeDescription: recipe.description };
    // The batch method runs the steps (same dispatcher, evidence and expect rules as `commands`).
    try {
      const data = await runBatch(ctx, { commands, stopOnError: p.stopOnError ?? true });
      return { ...data, ...extra };
    } catch (err) {
      if (err instanceof CommandFailure) throw new CommandFailure(err.message, { ...err.data, ...extra });
      throw err;
    }
  },
});

export const RECIPES: HttpMethod[] = [listRecipesMethod, runRecipe];
