// The jobIds of the claim inside BullMQ's add (createClaimJobIds): unique to their add, which is
// all the duplicate check needs (an answer other than the jobId asked for is a duplicate), and
// short, because BullMQ packs each one twice per add a character at a time.
import { createClaimJobIds } from '../../src/redis/queues.js';

describe('createClaimJobIds', () => {
  it('gives ids unique within a dispatcher: its tag, then a counter', () => {
    const next = createClaimJobIds();
    const ids = Array.from({ length: 100_000 }, next);
    expect(new Set(ids).size).toBe(ids.length);
    const tag = ids[0]!.slice(0, ids[0]!.indexOf('.') + 1);
    expect(tag).toMatch(/^c[A-Za-z0-9_-]{12}\.$/);
    expect(ids.every((id) => id.startsWith(tag))).toBe(true);
    expect(ids.slice(0, 3).map((id) => id.slice(tag.length))).toEqual(['1', '2', '3']);
    expect(ids.at(-1)).toBe(`${tag}${(100_000).toString(36)}`);
  });

  it('draws a new tag per dispatcher', () => {
    const tags = new Set(Array.from({ length: 1000 }, () => createClaimJobIds()().split('.')[0]));
    expect(tags.size).toBe(1000);
  });

  it('gives ids BullMQ takes (never an integer, no colon) and short ones (at most 20 characters for the first 2^31 adds)', () => {
    const next = createClaimJobIds();
    const id = next();
    expect(`${Number.parseInt(id, 10)}`).not.toBe(id);
    expect(id).not.toContain(':');
    // the tag (14 characters), then the counter in base 36: 2^31 is six digits
    expect(id).toHaveLength(15);
  });
});
