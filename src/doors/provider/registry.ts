import { MethodTable } from '../kit/index.js';
import { PROVIDER_METHODS } from './describe.js';
import { CDP_METHODS } from './methods-cdp.js';
import { CORE_PAGE_METHODS, CORE_SESSION_METHODS } from './methods-core.js';
import { CUSTOM_METHODS } from './methods-custom.js';
import { INTROSPECTION_METHODS } from './methods-introspection.js';
import { OPTIONAL_METHODS } from './methods-optional.js';
import type { CallContext, ProviderMeta, ProviderMethod, ProviderOptions } from './table.js';

/** Every method of the provider door, in describe's order: each a row over engine operations. */
export const ALL_METHODS: readonly ProviderMethod[] = [
  ...PROVIDER_METHODS,
  ...CORE_SESSION_METHODS,
  ...CORE_PAGE_METHODS,
  ...OPTIONAL_METHODS,
  ...INTROSPECTION_METHODS,
  ...CUSTOM_METHODS,
  ...CDP_METHODS,
];

export type ProviderTable = MethodTable<CallContext, ProviderMeta, unknown>;

/** The methods this process answers: exactly the ones provider.describe lists. */
export function providerTable(
  options: ProviderOptions,
  all: readonly ProviderMethod[] = ALL_METHODS,
): ProviderTable {
  return new MethodTable(all).filter((m) => m.meta.available?.(options) ?? true);
}
