import { TabwrightError } from '../../engine/errors.js';
import { type BinaryCandidate, binaryCandidates, binaryVersion, isExecutable } from '../binary-version.js';
import candidates from './candidates.json' with { type: 'json' };

export const CHROMIUM_INSTALL_COMMAND = candidates.installCommand;

export interface FoundBrowser {
  path: string;
  source: 'TABWRIGHT_CHROMIUM' | 'default path';
}

/**
 * The default search paths, or $TABWRIGHT_BROWSER_PATHS (colon-separated)
 * when set: lets a machine with an unusual layout, and the setup tests,
 * replace the list.
 */
export function searchPaths(env = process.env): string[] {
  return env.TABWRIGHT_BROWSER_PATHS
    ? env.TABWRIGHT_BROWSER_PATHS.split(':').filter(Boolean)
    : candidates.paths;
}

/** Every candidate with whether it exists; used by `tabwright doctor`. */
export function listChromiumCandidates(env = process.env): BinaryCandidate[] {
  return binaryCandidates('TABWRIGHT_CHROMIUM', env.TABWRIGHT_CHROMIUM, searchPaths(env));
}

/** The vendors' Chromium-based builds tabwright knows (candidates.json `products`): chrome, edge. */
export const CHROMIUM_PRODUCTS: readonly string[] = Object.keys(candidates.products);

const PRODUCT_LABELS: Record<string, string> = { chrome: 'Google Chrome', edge: 'Microsoft Edge' };

/** The variable that points at a vendor build's binary: TABWRIGHT_CHROME, TABWRIGHT_EDGE. */
export function productEnvVar(product: string): string {
  return `TABWRIGHT_${product.toUpperCase()}`;
}

/** The vendor's name for its build ("Google Chrome"), or undefined for a product tabwright does not know. */
export function productLabel(product: string): string | undefined {
  return PRODUCT_LABELS[product];
}

function productPaths(product: string): string[] {
  return (candidates.products as Record<string, string[]>)[product] ?? [];
}

/**
 * A vendor build's binary: its variable when set (even when it points nowhere: that is reported,
 * never replaced by a default path the user did not mean), else its first install path found.
 */
function findProduct(
  product: string,
  env: NodeJS.ProcessEnv,
): { path: string; source: string; executable: boolean } | undefined {
  const own = env[productEnvVar(product)];
  if (own) return { path: own, source: productEnvVar(product), executable: isExecutable(own) };
  const found = productPaths(product).find(isExecutable);
  return found ? { path: found, source: 'default path', executable: true } : undefined;
}

/** The vendors' Chromium-based builds installed here (chrome, edge), each by its binary ($TABWRIGHT_CHROME, …, then the install paths). */
export function findChromiumProducts(env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const product of CHROMIUM_PRODUCTS) {
    const found = findProduct(product, env);
    if (found?.executable) out[product] = found.path;
  }
  return out;
}

/** Product variables that point at no executable file (doctor reports them). */
export function invalidProductPaths(
  env = process.env,
): { product: string; variable: string; path: string }[] {
  return CHROMIUM_PRODUCTS.flatMap((product) => {
    const found = findProduct(product, env);
    return found && !found.executable ? [{ product, variable: found.source, path: found.path }] : [];
  });
}

/** A vendor build's binary, or setup_required naming where tabwright looked and the variable to set. */
export function requireChromiumProduct(product: string, env = process.env): string {
  const label = productLabel(product);
  if (!label) {
    throw new TabwrightError(
      'invalid_request',
      `Unknown Chromium product "${product}"; use one of ${CHROMIUM_PRODUCTS.join(', ')}, or leave product out for Chromium.`,
      { details: { field: 'product', supported: [...CHROMIUM_PRODUCTS] } },
    );
  }
  const variable = productEnvVar(product);
  const found = findProduct(product, env);
  if (found?.executable) return found.path;
  throw new TabwrightError(
    'setup_required',
    found
      ? `${variable} points to ${found.path}, which is not an executable file. Fix the path or unset the variable.`
      : `${label} is not installed here (looked at ${productPaths(product).join(', ')}). Install it, set ${variable} to its binary, or start the session without product to use Chromium.`,
    { details: { product, manual_steps: [`export ${variable}=/path/to/${product}`] } },
  );
}

/** The product a binary is (its variable's value or one of its install paths), or undefined for Chromium's own. */
export function productOfBinary(path: string, env = process.env): string | undefined {
  return CHROMIUM_PRODUCTS.find(
    (product) => env[productEnvVar(product)] === path || productPaths(product).includes(path),
  );
}

/** $TABWRIGHT_CHROMIUM first (an error if it points nowhere), then the default paths. */
export function findChromium(env = process.env): FoundBrowser | undefined {
  if (env.TABWRIGHT_CHROMIUM) {
    if (!isExecutable(env.TABWRIGHT_CHROMIUM)) {
      throw new TabwrightError(
        'setup_required',
        `TABWRIGHT_CHROMIUM points to ${env.TABWRIGHT_CHROMIUM}, which is not an executable file. Fix the path or unset the variable.`,
        { details: { manual_steps: [`unset TABWRIGHT_CHROMIUM`, CHROMIUM_INSTALL_COMMAND] } },
      );
    }
    return { path: env.TABWRIGHT_CHROMIUM, source: 'TABWRIGHT_CHROMIUM' };
  }
  for (const path of searchPaths(env)) if (isExecutable(path)) return { path, source: 'default path' };
  return undefined;
}

export function requireChromium(env = process.env): FoundBrowser {
  const found = findChromium(env);
  if (found) return found;
  throw new TabwrightError(
    'setup_required',
    `No Chromium found (looked at $TABWRIGHT_CHROMIUM and ${searchPaths(env).join(', ')}). Install it with: ${CHROMIUM_INSTALL_COMMAND} (as root), or set TABWRIGHT_CHROMIUM to a Chromium or Chrome binary.`,
    {
      details: { manual_steps: [CHROMIUM_INSTALL_COMMAND, 'or: export TABWRIGHT_CHROMIUM=/path/to/chrome'] },
    },
  );
}

/** "Chromium 156.0.8078.108 built on Debian…" → first line; undefined when the binary will not say. */
export function chromiumVersion(path: string): string | undefined {
  return binaryVersion(path);
}
