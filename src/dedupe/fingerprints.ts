import { randomFillSync } from 'node:crypto';
import { sha256Base64url } from '../util/sha256.js';

/**
 * Words of a fingerprint: a 43-character base64url key (the pipeline's SHA-256 digests) packed
 * exactly, five 6-bit characters a word. Every other key is first digested, so a fingerprint is
 * always nine small integers, whatever the key's length.
 */
export const FINGERPRINT_WORDS = 9;

const DIGEST_LENGTH = 43;

/**
 * Character code → its base64url 6-bit value, or 0xff: every UTF-16 code unit has an entry (64 KiB),
 * so the packing looks a character up with no range check of its own.
 */
const SEXTET = new Uint8Array(0x10000).fill(0xff);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
for (let i = 0; i < ALPHABET.length; i += 1) SEXTET[ALPHABET.charCodeAt(i)] = i;

/** Words of a hash seed: one per fingerprint word, and the initial state. @public (the benchmarks use it) */
export const SEED_WORDS = FINGERPRINT_WORDS + 1;

/**
 * This process's seed of the dedupe table's hash, random (drawn on first use) and never exposed.
 * With a fixed, public hash function, event ids whose keys land in one run of the table
 * can be ground offline (one candidate in four hits a chosen quarter) and then turn every claim
 * into a linear scan. A key is a SHA-256 digest of the sender's identity, so a sender picks among
 * uniformly random words only; without the seed it cannot tell where any key lands.
 */
let processSeed: Int32Array | undefined;

/**
 * Draws {@link processSeed} on its first use rather than at module scope, where a Cloudflare Worker
 * may not generate random values; a fingerprint then reads the variable and takes a branch that
 * goes the same way on every later call.
 */
function drawProcessSeed(): Int32Array {
  return (processSeed = randomFillSync(new Int32Array(SEED_WORDS)));
}

/**
 * Writes the fingerprint of `key` into `out[at … at + 8]` and returns its 32-bit hash under
 * `seed` (the process's by default). A 43-character base64url key is packed as it is (two
 * different such keys never share a fingerprint). Any other key is replaced by the SHA-256 of `#` +
 * its JSON text (JSON escapes a lone surrogate, which UTF-8 would turn into U+FFFD, so two
 * different keys never share a digest input); such a key therefore shares its fingerprint with one
 * 43-character string, that digest, which no pipeline key is (their digest input starts with the
 * type, not `#`). The fingerprint does not depend on the seed; the hash does.
 */
export function fingerprint(
  key: string,
  out: Int32Array,
  at: number,
  seed: Int32Array = processSeed ?? drawProcessSeed(),
): number {
  if (key.length !== DIGEST_LENGTH || !pack(key, out, at)) {
    pack(sha256Base64url(`#${JSON.stringify(key)}`), out, at);
  }
  // Each word is offset by its own seed word before it is mixed in: an addition, not an XOR, so
  // that two keys' difference is not carried unchanged into the state whatever the seed.
  let hash = seed[FINGERPRINT_WORDS]!;
  for (let i = 0; i < FINGERPRINT_WORDS; i += 1)
    hash = Math.imul(hash ^ ((out[at + i]! + seed[i]!) | 0), 0x85ebca6b) ^ (hash >>> 15);
  // murmur3's finaliser: every bit of every word reaches the low bits a table cell is taken from
  // (the words of a digest are uniform anyway; a direct caller's 43-character keys need not be).
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/**
 * Packs a 43-character key; false when a character is not base64url (the words are then
 * meaningless). Five characters a word, written out: this runs on every claim, and the loop over
 * characters with a branch per character it replaces cost 40 % more per key (figures:
 * bench/HISTORY.md). An unknown character is 0xff, which `sextets` carries past 63.
 */
function pack(key: string, out: Int32Array, at: number): boolean {
  let sextets = 0;
  for (let word = 0, i = 0; word < FINGERPRINT_WORDS - 1; word += 1, i += 5) {
    const s0 = SEXTET[key.charCodeAt(i)]!;
    const s1 = SEXTET[key.charCodeAt(i + 1)]!;
    const s2 = SEXTET[key.charCodeAt(i + 2)]!;
    const s3 = SEXTET[key.charCodeAt(i + 3)]!;
    const s4 = SEXTET[key.charCodeAt(i + 4)]!;
    sextets |= s0 | s1 | s2 | s3 | s4;
    out[at + word] = (s0 << 24) | (s1 << 18) | (s2 << 12) | (s3 << 6) | s4;
  }
  // The last word holds the last three characters (43 = 8 × 5 + 3).
  const s0 = SEXTET[key.charCodeAt(40)]!;
  const s1 = SEXTET[key.charCodeAt(41)]!;
  const s2 = SEXTET[key.charCodeAt(42)]!;
  sextets |= s0 | s1 | s2;
  out[at + FINGERPRINT_WORDS - 1] = (s0 << 12) | (s1 << 6) | s2;
  return sextets < 64;
}
