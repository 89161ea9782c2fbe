import { buildDescribe, PROVIDER_METHODS } from './describe.js';
import { CDP_METHODS } from './methods-cdp.js';
import { CORE_PAGE_METHODS, CORE_SESSION_METHODS } from './methods-core.js';
import { CUSTOM_METHODS } from './methods-custom.js';
import { INTROSPECTION_METHODS } from './methods-introspection.js';
import { OPTIONAL_METHODS } from './methods-optional.js';
import type { MethodDef, ProviderOptions } from './table.js';

const ALL: MethodDef[] = [
  ...PROVIDER_METHODS,
  ...CORE_SESSION_METHODS,
  ...CORE_PAGE_METHODS,
  ...OPTIONAL_METHODS,
  ...INTROSPECTION_METHODS,
  ...CUSTOM_METHODS,
  ...CDP_METHODS,
];

/** The methods this process answers: exactly the ones provider.describe lists. */
export class MethodRegistry {
  private readonly byName = new Map<string, MethodDef>();
  private describeCache: Record<string, unknown> | undefined;

  constructor(
    private readonly options: ProviderOptions,
    defs: MethodDef[] = ALL,
  ) {
    for (const d of defs) if (!d.available || d.available(options)) this.byName.set(d.name, d);
  }

  get(name: string): MethodDef | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  describe(): Record<string, unknown> {
    this.describeCache ??= buildDescribe(
      [...this.byName.values()].map((def) => ({ def, listed: true })),
      this.options,
    );
    return this.describeCache;
  }
}
