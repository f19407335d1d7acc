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

/**
 * Writes the fingerprint of `key` into `out[at … at + 8]` and returns its 32-bit hash. A
 * 43-character base64url key is packed as it is (two different such keys never share a
 * fingerprint). Any other key is replaced by the SHA-256 of `#` + its JSON text (JSON escapes a
 * lone surrogate, which UTF-8 would turn into U+FFFD, so two different keys never share a digest
 * input); such a key therefore shares its fingerprint with one 43-character string, that digest,
 * which no pipeline key is (their digest input starts with the type, not `#`).
 */
export function fingerprint(key: string, out: Int32Array, at: number): number {
  if (key.length !== DIGEST_LENGTH || !pack(key, out, at)) {
    pack(sha256Base64url(`#${JSON.stringify(key)}`), out, at);
  }
  let hash = 0x9e3779b9;
  for (let i = 0; i < FINGERPRINT_WORDS; i += 1)
    hash = Math.imul(hash ^ out[at + i]!, 0x85ebca6b) ^ (hash >>> 15);
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
