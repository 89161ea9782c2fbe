import { z } from 'zod';
import { pageCdpSession } from '../../engine/raw.js';
import { opOptions, pageOf } from './helpers.js';
import { CdpSendParams } from './schemas.js';
import { type MethodDef, method } from './table.js';

/**
 * cdp.send: raw Chrome DevTools Protocol, only with --allow-raw-cdp. It
 * bypasses the engine's guards (origin policy, actionability, refs), so it
 * is experimental and never offered by default.
 */
export const CDP_METHODS: MethodDef[] = [
  method({
    name: 'cdp.send',
    group: 'custom',
    stability: 'experimental',
    description:
      'Send one raw CDP command to the page (e.g. {"method": "Performance.getMetrics"}). Bypasses every engine guard; offered only with --allow-raw-cdp.',
    input: CdpSendParams,
    output: z.object({ page_id: z.string(), result: z.unknown() }),
    available: (o) => o.allowRawCdp && o.browser === 'chromium',
    handler: async (p, call) => {
      const page = pageOf(call, p);
      const result = await page.run('cdp.send', 'action', opOptions(p, call), async () => {
        const cdp = await pageCdpSession(page);
        try {
          return await cdp.send(p.method, p.params ?? {});
        } finally {
          void cdp.detach();
        }
      });
      return { page_id: page.id, result: result ?? {} };
    },
  }),
];
