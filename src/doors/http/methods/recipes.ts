import { join } from 'node:path';
import { z } from 'zod';
import { commands as batchMethod } from '../batch.js';
import { CommandFailure, type Data, invalidArgument } from '../envelope.js';
import { listRecipes, loadRecipe, RecipeError, substitute } from '../recipes.js';
import { def, type MethodContext, type MethodDef } from './common.js';

/**
 * list_recipes / run_recipe (reference §13.6). The folder is
 * $TABWRIGHT_RECIPES_DIR, else `<engine home>/recipes`. run_recipe runs the
 * substituted commands through the `commands` batch method.
 */

export function recipesDir(ctx: MethodContext): string {
  return process.env.TABWRIGHT_RECIPES_DIR || join(ctx.engine.home, 'recipes');
}

const listRecipesMethod = def({
  name: 'list_recipes',
  task: 'none',
  schema: z.object({}),
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

const runRecipe = def({
  name: 'run_recipe',
  task: 'existing',
  schema: z.object({
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
      const data = await batchMethod.run(ctx, { commands, stopOnError: p.stopOnError ?? true });
      return { ...data, ...extra };
    } catch (err) {
      if (err instanceof CommandFailure) throw new CommandFailure(err.message, { ...err.data, ...extra });
      throw err;
    }
  },
});

export const RECIPES: MethodDef[] = [listRecipesMethod, runRecipe];
