// The fingerprint of a key (the in-memory store's form of it) after its packing was written out
// five characters a word: the same words as the character-by-character packing it replaced, for
// every base64url key, and the digest's words for every other 43-character string (codes of 128
// and up, ASCII outside the alphabet, lone surrogates), so no key changes meaning and two keys
// never share words. Fixed seed (FC_SEED overrides); fast-check prints the seed and path on failure.
import fc from 'fast-check';
import { fingerprint, FINGERPRINT_WORDS } from '../../src/dedupe/fingerprints.js';
import { sha256Base64url } from '../../src/util/sha256.js';

const SEED = Number(process.env.FC_SEED ?? 2026_11_29);
const settings = { seed: SEED, numRuns: 2000 };
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const FIXED_SEED = Int32Array.from({ length: FINGERPRINT_WORDS + 1 }, (_, i) => Math.imul(i + 3, 0x2545f491));

/** The packing before: one character at a time, 6 bits each, five to a word; undefined if not base64url. */
function referenceWords(key: string): number[] | undefined {
  const words: number[] = [];
  for (let word = 0; word < FINGERPRINT_WORDS; word += 1) {
    let value = 0;
    for (let i = word * 5; i < Math.min(word * 5 + 5, 43); i += 1) {
      const sextet = ALPHABET.indexOf(key[i]!);
      if (sextet < 0) return undefined;
      value = (value << 6) | sextet;
    }
    words.push(value);
  }
  return words;
}

function wordsOf(key: string): number[] {
  const out = new Int32Array(FINGERPRINT_WORDS + 2);
  fingerprint(key, out, 1, FIXED_SEED);
  return [...out.subarray(1, 1 + FINGERPRINT_WORDS)];
}

const base64urlKey = fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 43, maxLength: 43 });

/** 43 characters, one of them (at least) outside the alphabet: ASCII, Latin-1, wide, or a lone surrogate. */
const otherKey = fc
  .tuple(
    base64urlKey,
    fc.integer({ min: 0, max: 42 }),
    fc.oneof(
      fc.constantFrom(
        '=',
        '+',
        '/',
        '.',
        ' ',
        '\0',
        '\x7f',
        '\x80',
        '\xc1',
        'ÿ',
        'Ł',
        '\u4e2d',
        '\ud800',
        '\udfff',
      ),
      // Codes whose low 7 bits name an alphabet character: the lookup by low bits must refuse them.
      fc.constantFrom(...[...ALPHABET].map((c) => String.fromCharCode(c.charCodeAt(0) + 128))),
    ),
  )
  .map(([key, at, char]) => key.slice(0, at) + char + key.slice(at + 1));

describe(`fingerprint packing (fast-check seed ${SEED})`, () => {
  it('a base64url key: the words of the character-by-character packing', () => {
    fc.assert(
      fc.property(base64urlKey, (key) => {
        expect(wordsOf(key)).toEqual(referenceWords(key));
      }),
      settings,
    );
  });

  it("any other 43-character string: its digest's words, never its own", () => {
    fc.assert(
      fc.property(otherKey, (key) => {
        expect(referenceWords(key)).toBeUndefined();
        expect(wordsOf(key)).toEqual(referenceWords(sha256Base64url(`#${JSON.stringify(key)}`)));
      }),
      settings,
    );
  });

  it('two different keys never share words', () => {
    fc.assert(
      fc.property(fc.oneof(base64urlKey, otherKey), fc.oneof(base64urlKey, otherKey), (a, b) => {
        fc.pre(a !== b);
        expect(wordsOf(a)).not.toEqual(wordsOf(b));
      }),
      settings,
    );
  });
});
