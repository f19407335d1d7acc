import { randomUUID } from 'node:crypto';

/**
 * A random UUID (v4) as one flat string. node:crypto's `randomUUID()` builds its text by
 * concatenating twenty pieces, and V8 keeps such a string as the tree of those pieces (about
 * 490 bytes, against 60 flat) for as long as anything holds it without reading it whole. The
 * state holds several per chat and per message (ids, conversation ids, gstIds), and the delivery
 * log several per payload: copied once through latin1, each is 60 bytes.
 */
export function newId(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}
