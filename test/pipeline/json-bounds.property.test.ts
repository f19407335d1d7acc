import fc from 'fast-check';
import { inspectJson, scanJsonStructure, type JsonLimits } from '../../src/pipeline/json.js';

const SEED = Number(process.env.FC_SEED ?? 16_2026);

describe('the byte scan and the walk agree on the structural bounds', () => {
  it('gives the same verdict on random JSON, compact or indented (fixed seed)', () => {
    const limits = fc.record({
      maxDepth: fc.integer({ min: 1, max: 6 }),
      maxKeys: fc.integer({ min: 0, max: 12 }),
      maxItems: fc.integer({ min: 0, max: 12 }),
    });
    let runs = 0;
    try {
      fc.assert(
        fc.property(
          fc.jsonValue({ maxDepth: 6 }),
          limits,
          fc.boolean(),
          (value, bounds: JsonLimits, indent) => {
            runs += 1;
            const text = JSON.stringify(value, null, indent ? 2 : undefined);
            const scanned = scanJsonStructure(Buffer.from(text), bounds);
            const walked = inspectJson(JSON.parse(text), bounds).exceeded;
            expect(scanned === undefined).toBe(walked === undefined);
          },
        ),
        { seed: SEED, numRuns: 500 },
      );
    } catch (error) {
      throw new Error(`property failed with seed ${SEED} (rerun: FC_SEED=${SEED})`, { cause: error });
    }
    expect(runs).toBe(500);
  });
});
