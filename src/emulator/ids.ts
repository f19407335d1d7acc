import { randomFillSync } from 'node:crypto';

/*
 * Random UUIDs (v4) for the ids the emulator makes: chats, conversations, messages, deliveries,
 * events. node:crypto's randomUUID() builds its text by concatenating twenty pieces, which V8
 * keeps as the tree of those pieces (about 490 bytes, against 60 flat) for as long as a record
 * holds the string; the state holds several per chat and per message. Here the same random
 * bytes (randomFillSync, in batches as randomUUID does) are written into one buffer and read out
 * as one flat string. A new customer's message makes five: the cost is in docs/emulator.md (At the size of real traffic).
 */

const BATCH = 128;
const random = Buffer.allocUnsafe(16 * BATCH);
let used = BATCH;
const text = Buffer.allocUnsafe(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** A random UUID (v4, RFC 9562), lower-case, as one flat string. */
export function newId(): string {
  if (used === BATCH) {
    randomFillSync(random);
    used = 0;
  }
  const base = 16 * used;
  used += 1;
  let at = 0;
  for (let i = 0; i < 16; i += 1) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d; // '-'
    let byte = random[base + i] as number;
    if (i === 6)
      byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // variant 10
    text[at++] = HEX[byte >> 4] as number;
    text[at++] = HEX[byte & 0x0f] as number;
  }
  return text.toString('latin1', 0, 36);
}
