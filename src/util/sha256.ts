import * as crypto from 'node:crypto';

/**
 * SHA-256 of a string, base64url (43 characters). `crypto.hash` (Node >= 20.12) is one native call
 * with no Hash object, a fraction of the cost of createHash().update().digest() on a UUID-sized
 * input (figures: docs/bench.md), on the receiver's request path (one dedupe key per request). Read
 * through the namespace, so that a Node 20 older than 20.12 falls back instead of failing to link.
 */
export const sha256Base64url: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'base64url')
    : (text) => crypto.createHash('sha256').update(text).digest('base64url');

/** SHA-256 of bytes, base64url (43 characters). */
export const sha256BytesBase64url: (bytes: Uint8Array) => string =
  typeof crypto.hash === 'function'
    ? (bytes) => crypto.hash('sha256', bytes, 'base64url')
    : (bytes) => crypto.createHash('sha256').update(bytes).digest('base64url');
