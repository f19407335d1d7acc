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
 * fingerprint); any other key is replaced by the SHA-256 of `#` + key first (the `#` keeps it apart
 * from a key that is itself that digest).
 */
export function fingerprint(key: string, out: Int32Array, at: number): number {
  if (key.length !== DIGEST_LENGTH || !pack(key, out, at)) {
    pack(sha256Base64url(`#${key}`), out, at);
  }
  // The words of a digest are uniformly distributed; mixed anyway, for keys that are not digests.
  let hash = 0x9e3779b9;
  for (let i = 0; i < FINGERPRINT_WORDS; i += 1)
    hash = Math.imul(hash ^ out[at + i]!, 0x85ebca6b) ^ (hash >>> 15);
  return hash ^ (hash >>> 13);
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
