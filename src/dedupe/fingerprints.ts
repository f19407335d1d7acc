import { randomFillSync } from 'node:crypto';
import { sha256Base64url } from '../util/sha256.js';

/**
 * Words of a fingerprint: a 43-character base64url key (the pipeline's SHA-256 digests) packed
 * exactly, five 6-bit characters a word. Every other key is first digested, so a fingerprint is
 * always nine small integers, whatever the key's length.
 */
export const FINGERPRINT_WORDS = 9;

const DIGEST_LENGTH = 43;

/** base64url character code → its 6-bit value, or -1. */
const SEXTET = new Int8Array(128).fill(-1);
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

/** Packs a 43-character key; false when a character is not base64url. */
function pack(key: string, out: Int32Array, at: number): boolean {
  for (let word = 0; word < FINGERPRINT_WORDS; word += 1) {
    let value = 0;
    const end = Math.min(word * 5 + 5, DIGEST_LENGTH);
    for (let i = word * 5; i < end; i += 1) {
      const code = key.charCodeAt(i);
      const sextet = code < 128 ? SEXTET[code]! : -1;
      if (sextet < 0) return false;
      value = (value << 6) | sextet;
    }
    out[at + word] = value;
  }
  return true;
}
