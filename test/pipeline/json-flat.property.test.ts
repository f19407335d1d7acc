import fc from 'fast-check';
import {
  DEFAULT_JSON_LIMITS,
  inspectFlatObject,
  inspectJson,
  isFlatObjectText,
} from '../../src/pipeline/json.js';

const SEED = Number(process.env.FC_SEED ?? 39_2026);

/** Object keys that matter to the walk, and others. */
const key = fc.constantFrom('a', 'b', '__proto__', 'constructor', 'prototype', '', '{', '[');

describe('the flat-object shortcut of the payload walk', () => {
  it('is taken only for text whose parsed value holds no object or array (fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        const text = JSON.stringify(value);
        if (!isFlatObjectText(Buffer.from(text))) return;
        const parsed = JSON.parse(text) as unknown;
        expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
        for (const child of Object.values(parsed as object))
          expect(typeof child !== 'object' || child === null).toBe(true);
        expect(isFlatObjectText(text)).toBe(true);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('leaves a flat object as the full walk does: __proto__ dropped, a primitive constructor kept (fixed seed)', () => {
    let flat = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))), {
          maxLength: 6,
        }),
        (entries) => {
          const text = `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}`;
          if (!isFlatObjectText(Buffer.from(text))) return;
          flat += 1;
          const walked = JSON.parse(text) as Record<string, unknown>;
          const short = JSON.parse(text) as Record<string, unknown>;
          expect(inspectFlatObject(short)).toEqual(inspectJson(walked, DEFAULT_JSON_LIMITS));
          expect(Object.entries(short)).toEqual(Object.entries(walked));
          expect(Object.hasOwn(short, '__proto__')).toBe(false);
        },
      ),
      { seed: SEED, numRuns: 2000 },
    );
    // The generator reaches the shortcut, with and without a __proto__ key.
    expect(flat).toBeGreaterThan(100);
  });

  it('is not taken for a nested value, a leading space or byte order mark, or an array', () => {
    for (const text of ['{"a":{}}', '{"a":[1]}', ' {"a":1}', '\ufeff{"a":1}', '[1]', '"x"', '{"a":"{"}']) {
      expect(isFlatObjectText(Buffer.from(text))).toBe(false);
      expect(isFlatObjectText(text)).toBe(false);
    }
    expect(isFlatObjectText(Buffer.from('{"a":1,"__proto__":"x"}'))).toBe(true);
  });
});
