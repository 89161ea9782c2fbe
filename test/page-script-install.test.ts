import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BackendFrame } from '../src/backends/backend.js';
import { PAGE_SCRIPT } from '../src/snapshot/injected/bundle.generated.js';
import { engineTestEnv } from './helpers/engine.js';

const { server, session } = await engineTestEnv();
const fixture = (name: string) => `${server.url}/fixtures/snapshot/${name}`;

interface Sent {
  source: string;
  arg: unknown;
  child: boolean;
}

/** Records what every frame of the page evaluates while `run` runs. */
async function recordEvaluations(run: () => Promise<void>): Promise<Sent[]> {
  const page = session.page();
  const sent: Sent[] = [];
  const protos = new Set(page.backend.frames().map((f) => Object.getPrototypeOf(f) as BackendFrame));
  const originals = [...protos].map((p) => [p, p.evaluate] as const);
  for (const [proto, original] of originals) {
    proto.evaluate = function (this: BackendFrame, fn, arg, timeoutMs) {
      sent.push({ source: fn.toString(), arg, child: this.parentId !== null });
      return original.call(this, fn as never, arg as never, timeoutMs);
    } as BackendFrame['evaluate'];
  }
  try {
    await run();
  } finally {
    for (const [proto, original] of originals) proto.evaluate = original;
  }
  return sent;
}

describe('the page script is installed from one constant source', () => {
  test('the source that carries the page script never carries a call argument, in the main frame and in child frames', async () => {
    const page = session.page();
    const sent = await recordEvaluations(async () => {
      for (const name of ['basic.html', 'iframes.html', 'stylesheets.html']) {
        await page.open(fixture(name));
        // Different walk options: with the argument in the same source, each would compile anew.
        await page.snapshot({});
        await page.snapshot({ interactive_only: true, include_boxes: true });
      }
    });
    const installs = sent.filter((s) => s.source.includes(PAGE_SCRIPT));
    assert.ok(
      installs.length >= 3,
      `the page script was installed in every new document (${installs.length})`,
    );
    assert.ok(
      installs.some((s) => s.child),
      'the child frame got the same install (iframes.html has a same-origin child)',
    );
    for (const s of installs) assert.equal(s.arg, null, 'the install call takes no argument');
    assert.equal(new Set(installs.map((s) => s.source)).size, 1, 'every install sends the same source');
    const walks = sent.filter((s) => (s.arg as { op?: string } | null)?.op === 'walk');
    assert.ok(walks.length >= 6, 'the walks went through the small stub');
    for (const s of walks)
      assert.ok(s.source.length < 300, `a walk sent ${s.source.length} characters of source`);
  });

  test("a wait on a ref checks the element through the small stub, without the page script's source", async () => {
    const page = session.page();
    await page.open(fixture('basic.html'));
    const snap = await page.snapshot({});
    const ref = snap.elements[0]!.element_ref;
    const sent = await recordEvaluations(async () => {
      const res = await page.wait({ element_ref_present: ref }, {}, { timeoutMs: 5000 });
      assert.equal(res.satisfied, true, JSON.stringify(res));
    });
    const checks = sent.filter((s) => (s.arg as { op?: string } | null)?.op === 'check');
    assert.ok(checks.length >= 1, 'the ref was checked in the page');
    assert.ok(!sent.some((s) => s.source.includes(PAGE_SCRIPT)), 'no call sent the page script');
  });
});
