import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { engineTestEnv } from './helpers/engine.js';

const { server, session } = await engineTestEnv();

type Refusal = { code: string; details: { reason: string; status: string; sensitive?: string } };

describe('engine: refusals a door asks for (ActionOptions.refuse) and Page.frames()', () => {
  test('refuse.sensitive: fill and type into sensitive fields are refused before anything is typed', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/js/form.html` });
    try {
      const refuse = { sensitive: true };
      await assert.rejects(
        page.act({ selector: '#pw' }, { action: 'fill', value: 'hunter2' }, { refuse }),
        (e: Refusal) =>
          e.code === 'element_not_actionable' &&
          e.details.reason === 'sensitive_field' &&
          e.details.sensitive === 'password' &&
          e.details.status === 'blocked',
      );
      await assert.rejects(
        page.act({ selector: '#note' }, { action: 'type', text: 'x' }, { refuse }),
        (e: Refusal) => e.details.reason === 'sensitive_field' && e.details.sensitive === 'data-private',
      );
      const values = await page.evaluate(
        'values',
        () => [
          (document.getElementById('pw') as HTMLInputElement).value,
          (document.getElementById('note') as HTMLInputElement).value,
        ],
        null,
      );
      assert.deepEqual(values, ['', 'sentinel-secret-42'], 'nothing was typed');
      // An ordinary field, and a sensitive one without the refusal, are typed into.
      assert.equal(
        (await page.act({ selector: '#q' }, { action: 'fill', value: 'ok' }, { refuse })).verified,
        true,
      );
      assert.equal(
        (await page.act({ selector: '#pw' }, { action: 'fill', value: 'hunter2' })).verified,
        true,
      );
    } finally {
      await page.close();
    }
  });

  test('refuse.child_frames: a target inside an iframe is refused; Page.frames() lists frames with the policy verdict', async () => {
    const page = await session.newPage({ url: `${server.url}/fixtures/js/frames.html` });
    try {
      const frames = page.frames();
      assert.deepEqual(
        frames.map((f) => [f.parentId === null, f.url.replace(server.url, ''), f.allowed]),
        [
          [true, '/fixtures/js/frames.html', true],
          [false, '/fixtures/js/other.html', true],
        ],
      );
      const child = frames[1]!;
      await assert.rejects(
        page.act(
          { selector: 'h1', frame: child.id },
          { action: 'click' },
          { refuse: { child_frames: true } },
        ),
        (e: Refusal) => e.code === 'element_not_actionable' && e.details.reason === 'frame_unsupported',
      );
      assert.equal(
        (await page.act({ selector: 'h1', frame: child.id }, { action: 'click' })).status,
        'executed',
      );
    } finally {
      await page.close();
    }
  });
});
