/** A source of numbers in [0, 1), as Math.random. */
export type RandomSource = () => number;

/**
 * A seedable pseudo-random generator (mulberry32), so probabilistic fault injection can be
 * replayed: the same seed gives the same sequence of faults.
 */
export function createSeededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return function seededRandom() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
