/**
 * A form whose fields are added by hand builds a new schema at every edit. The validator must
 * not keep them: Ajv's instance did (+16.5 MB after 2,000 edits). Runs in Chromium, started
 * with --expose-gc (vitest.config.ts), so the test can ask for a full collection and then see,
 * through WeakRefs, which schemas survived it.
 */
import { expect, it } from 'vitest';
import { validateInput } from './input-validation';
import { schemaOfManualFields } from './schema-form';

const collectGarbage = async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('Chromium was started without --js-flags=--expose-gc');
  // A WeakRef keeps its target until the job that made it ends; then collect, twice over.
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
};

it('keeps none of 2,000 hand-made schemas once they are dropped, each checked as the form checks it', async () => {
  const refs: WeakRef<object>[] = [];
  const check = () => {
    for (let n = 0; n < 2_000; n++) {
      const schema = schemaOfManualFields([
        { name: `field${n}`, type: 'integer', required: true },
        { name: 'note', type: 'string', required: false },
        { name: 'count', type: 'integer', required: false },
      ]);
      refs.push(new WeakRef(schema), ...Object.values(schema.properties as Record<string, object>).map((p) => new WeakRef(p)));
      // Checked for real: the required field left empty, the optional number not a number.
      expect(validateInput(schema, { [`field${n}`]: '', note: '', count: 'x' })).toEqual({ [`field${n}`]: 'Required.', count: 'must be integer.' });
    }
  };
  check();
  expect(refs).toHaveLength(8_000);
  await collectGarbage();
  const kept = refs.filter((r) => r.deref() !== undefined).length;
  expect(kept, `${kept} of ${refs.length} schema objects outlived their form`).toBe(0);
});
