import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { createMemoryDedupeStore, digestDedupeKey } from '../../src/dedupe/index.js';
import { fingerprint, FINGERPRINT_WORDS } from '../../src/dedupe/fingerprints.js';

const SEED = Number(process.env.FC_SEED ?? 16_2026);

/**
 * The store's contract as plainly as it can be written: a Map in insertion order. A claim of a key
 * held for at most `ttl` is a duplicate; any other claim (new, released, expired) makes the key the
 * newest, and past `max` keys the oldest goes.
 */
class ModelStore {
  private readonly claims = new Map<string, number>();
  constructor(
    private readonly max: number,
    private readonly ttl: number,
  ) {}

  claim(key: string, now: number): boolean {
    const at = this.claims.get(key);
    if (at !== undefined && now - at <= this.ttl) return false;
    this.claims.delete(key);
    if (this.claims.size === this.max) this.claims.delete(this.claims.keys().next().value!);
    this.claims.set(key, now);
    return true;
  }

  release(key: string): void {
    this.claims.delete(key);
  }
}

type Step = { op: 'claim' | 'release'; key: number; wait: number };

describe('the in-memory dedupe store against a model of its contract', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  // Keys of both kinds the store tells apart: the pipeline's 43-character digests (packed as they
  // are) and short keys (digested first); few of them, so that claims repeat and collide in the table.
  const KEYS = [
    ...Array.from({ length: 24 }, (_, i) => digestDedupeKey('chatbot', `event-${i}`)),
    ...Array.from({ length: 24 }, (_, i) => `k${i}`),
  ];

  /** Runs random steps on the store and the model side by side; every claim must agree. */
  function agree(keys: readonly string[], maxes: fc.Arbitrary<number>, steps: number, runsWanted: number) {
    const step = fc.record<Step>({
      op: fc.constantFrom('claim', 'claim', 'claim', 'release'),
      key: fc.integer({ min: 0, max: keys.length - 1 }),
      wait: fc.constantFrom(0, 0, 1, 5, 40),
    });
    let runs = 0;
    try {
      fc.assert(
        fc.property(
          maxes,
          fc.integer({ min: 1, max: 60 }),
          fc.array(step, { minLength: steps / 2, maxLength: steps }),
          (max, ttl, list) => {
            runs += 1;
            let now = 0;
            jest.spyOn(performance, 'now').mockImplementation(() => now);
            const store = createMemoryDedupeStore({ max, ttlMs: ttl });
            const model = new ModelStore(max, ttl);
            for (const { op, key, wait } of list) {
              now += wait;
              if (op === 'release') {
                void store.release(keys[key]!);
                model.release(keys[key]!);
              } else {
                expect(store.claim(keys[key]!)).toBe(model.claim(keys[key]!, now));
              }
            }
          },
        ),
        { seed: SEED, numRuns: runsWanted },
      );
    } catch (error) {
      throw new Error(`property failed with seed ${SEED} (rerun: FC_SEED=${SEED})`, { cause: error });
    }
    expect(runs).toBe(runsWanted);
  }

  it('answers every claim as the model does: small stores, evictions, releases, expiry (fixed seed)', () => {
    agree(KEYS, fc.integer({ min: 1, max: 30 }), 300, 150);
  });

  it('answers every claim as the model does: crowded tables and growth past 1 024 slots (fixed seed)', () => {
    // Hundreds of live keys: long probe runs in the table, so removals shift entries back.
    const many = Array.from({ length: 1500 }, (_, i) =>
      i % 2 === 0 ? digestDedupeKey('incoming', String(i)) : `key-${i}`,
    );
    agree(many, fc.integer({ min: 200, max: 1300 }), 3000, 8);
  });

  it('keeps exactly the newest max keys of a long run past its first allocation (1 024 slots)', () => {
    const max = 5_000;
    const store = createMemoryDedupeStore({ max });
    const key = (i: number) => digestDedupeKey('incoming', String(i));
    for (let i = 0; i < 3 * max; i += 1) expect(store.claim(key(i))).toBe(true);
    // The newest max are remembered, the ones before them are not (each claim below re-inserts, so
    // it is checked from the newest down: a re-inserted old key evicts the oldest remembered one).
    for (let i = 3 * max - 1; i >= 2 * max; i -= 1) expect(store.claim(key(i))).toBe(false);
    expect(store.claim(key(2 * max - 1))).toBe(true);
  });
});

describe('fingerprint', () => {
  it('packs two 43-character digests differing in one character apart, and digests other keys', () => {
    const a = digestDedupeKey('chatbot', 'x');
    const b = `${a.slice(0, 42)}${a[42] === 'A' ? 'B' : 'A'}`;
    const words = (key: string) => {
      const out = new Int32Array(FINGERPRINT_WORDS);
      fingerprint(key, out, 0);
      return [...out];
    };
    expect(words(a)).not.toEqual(words(b));
    expect(words(a)).toEqual(words(a));
    // A key that is not base64url, of the digest's length, is digested rather than packed.
    const notBase64 = `${a.slice(0, 42)}!`;
    expect(words(notBase64)).toEqual(words(`${notBase64}`));
    expect(words(notBase64)).not.toEqual(words(a));
  });
});
