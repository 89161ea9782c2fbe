import { z } from 'zod';
import { ops } from '../../engine/api.js';
import { opOptions, pageOf } from './helpers.js';
import { CdpSendParams } from './schemas.js';
import { method, type ProviderMethod } from './table.js';

/**
 * cdp.send: raw Chrome DevTools Protocol, only with --allow-raw-cdp. It
 * bypasses the engine's guards (origin policy, actionability, refs), so it
 * is experimental and never offered by default.
 */
export const CDP_METHODS: ProviderMethod[] = [
  method({
    name: 'cdp.send',
    summary:
      'Send one raw CDP command to the page (e.g. {"method": "Performance.getMetrics"}). Bypasses every engine guard; offered only with --allow-raw-cdp.',
    ops: [ops.protocolSend],
    meta: {
      group: 'custom',
      stability: 'experimental',
      output: z.object({ page_id: z.string(), result: z.unknown() }),
      available: (o) => o.allowRawCdp && o.browser === 'chromium',
    },
    params: CdpSendParams,
    async run(call, p) {
      const page = pageOf(call, p);
      const result = await ops.protocolSend.call(
        page,
        { method: p.method, params: p.params },
        opOptions(p, call),
      );
      return { page_id: page.id, result: result ?? {} };
    },
  }),
];
