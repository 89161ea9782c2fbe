/**
 * playwright's rule for an evaluated string, kept by both backends so they answer alike: a function
 * expression (`() => …`, `async x => …`, `function () {…}`) is called, anything else is evaluated as is.
 */
export function evaluable(expression: string): string {
  const fnLike = /^(async\s+)?(function\b|\([^)]*\)\s*=>|[\w$]+\s*=>)/.test(expression.trim());
  return fnLike ? `(${expression})()` : expression;
}
