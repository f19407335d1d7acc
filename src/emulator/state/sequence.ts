/**
 * Records in the order they were added, for listings that page with a cursor and for dropping
 * the oldest: add, delete and `first()` in amortised O(1), a page in O(log n + the records it
 * passes over). Each record gets a sequence number when added; a cursor is the sequence number
 * of the last record of a page, so a page stays where it was while records come and go.
 */
export interface Sequence<T> {
  /** Records held. */
  readonly size: number;
  /**
   * Adds a record under `key` (a key already held moves): at the end with the next sequence
   * number, or, given `seq` (another sequence's number for the same record), in its place by it.
   */
  add(key: string, item: T, seq?: number): void;
  /** The sequence number of `key`'s record. */
  seqOf(key: string): number | undefined;
  /** Drops the record of `key`; false when there was none. */
  delete(key: string): boolean;
  /** The oldest record held. */
  first(): T | undefined;
  clear(): void;
  /** The records, oldest first. */
  values(): IterableIterator<T>;
  /**
   * Up to `limit` records that `match`, after `cursor` oldest first (`asc`) or before it newest
   * first (`desc`), from the start when no cursor. `nextCursor` continues the listing; null when
   * no record that matches is left.
   */
  page(query: SequenceQuery<T>): { readonly items: T[]; readonly nextCursor: number | null };
  /** How many records `match`: every record is visited (listing totals, never a lookup). */
  count(match: (item: T) => boolean): number;
}

/** A query of {@link Sequence.page}. */
export interface SequenceQuery<T> {
  readonly cursor?: number | undefined;
  readonly limit: number;
  readonly order: 'asc' | 'desc';
  readonly match?: ((item: T) => boolean) | undefined;
}

/** Creates an empty {@link Sequence}. */
export function createSequence<T>(): Sequence<T> {
  // Parallel arrays, ascending by sequence number. A dropped record leaves a hole (undefined)
  // until holes outnumber records, when both arrays are compacted. Every index below `head` is
  // a hole, so first() passes over each hole once.
  let seqs: number[] = [];
  let items: (T | undefined)[] = [];
  let holes = 0;
  let head = 0;
  let last = 0;
  const seqOf = new Map<string, number>();

  /** The first index whose sequence number is >= `seq`. */
  const lowerBound = (seq: number): number => {
    let [low, high] = [head, seqs.length];
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((seqs[middle] as number) < seq) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const compact = (): void => {
    const keptSeqs: number[] = [];
    const keptItems: T[] = [];
    for (let i = head; i < items.length; i += 1) {
      const item = items[i];
      if (item === undefined) continue;
      keptSeqs.push(seqs[i] as number);
      keptItems.push(item);
    }
    seqs = keptSeqs;
    items = keptItems;
    holes = 0;
    head = 0;
  };
  const remove = (key: string): boolean => {
    const seq = seqOf.get(key);
    if (seq === undefined) return false;
    seqOf.delete(key);
    items[lowerBound(seq)] = undefined;
    holes += 1;
    if (holes > 64 && holes > seqOf.size) compact();
    return true;
  };

  return {
    get size() {
      return seqOf.size;
    },
    add(key, item, seq) {
      remove(key);
      const at = seq ?? (last += 1);
      seqOf.set(key, at);
      if (seqs.length === 0 || (seqs[seqs.length - 1] as number) < at) {
        seqs.push(at);
        items.push(item);
        return;
      }
      // in its place: usually near the end (chats close and reopen roughly in creation order)
      const index = lowerBound(at);
      seqs.splice(index, 0, at);
      items.splice(index, 0, item);
    },
    seqOf: (key) => seqOf.get(key),
    delete: remove,
    first() {
      while (head < items.length && items[head] === undefined) head += 1;
      return items[head];
    },
    clear() {
      // sequence numbers run on: a cursor from before the clear cannot point into new records
      seqOf.clear();
      seqs = [];
      items = [];
      holes = 0;
      head = 0;
    },
    *values() {
      for (let i = head; i < items.length; i += 1) {
        const item = items[i];
        if (item !== undefined) yield item;
      }
    },
    page({ cursor, limit, order, match }) {
      const found: T[] = [];
      let lastSeq = 0;
      const step = order === 'asc' ? 1 : -1;
      let i: number;
      if (cursor === undefined) i = order === 'asc' ? head : items.length - 1;
      else i = order === 'asc' ? lowerBound(cursor + 1) : lowerBound(cursor) - 1;
      for (; i >= head && i < items.length; i += step) {
        const item = items[i];
        if (item === undefined || (match !== undefined && !match(item))) continue;
        // one more record matches: this page is not the last
        if (found.length === limit) return { items: found, nextCursor: lastSeq };
        found.push(item);
        lastSeq = seqs[i] as number;
      }
      return { items: found, nextCursor: null };
    },
    count(match) {
      let count = 0;
      for (let i = head; i < items.length; i += 1) {
        const item = items[i];
        if (item !== undefined && match(item)) count += 1;
      }
      return count;
    },
  };
}
