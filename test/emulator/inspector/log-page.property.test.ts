/*
 * The inspector's delivery log pager (`logPage`: numbered pages, newest first, filtered) reads the
 * same listing as `GET /_emulator/deliveries` (`deliveryListing`). Whatever the log and the query,
 * its page is the one the plain definition gives: the matching entries, newest first, sliced at
 * `page × size`, the page number held to the last page.
 */
import fc from 'fast-check';
import type { DeliveryLogEntry } from '../../../src/emulator/emit/delivery.js';
import { logPage, logQuerySchema } from '../../../src/emulator/inspector/model.js';
import { DELIVERY_STATES } from '../../../src/emulator/listings.js';
import { WEBHOOK_TYPES } from '../../../src/schemas/index.js';

const SEED = Number(process.env.FC_SEED ?? 36_2026);
const NUMBERS = ['+27820000001', '+27820000002'];

/** A log as the emulator keeps it: ascending sequence numbers, gaps where entries were dropped. */
const logArbitrary = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 1, max: 3 }),
      type: fc.constantFrom(...WEBHOOK_TYPES),
      state: fc.constantFrom(...DELIVERY_STATES),
      number: fc.constantFrom(...NUMBERS),
    }),
    { maxLength: 60 },
  )
  .map((rows) => {
    let sequence = 0;
    return rows.map(({ gap, type, state, number }) => {
      sequence += gap;
      return {
        id: `d${sequence}`,
        sequence,
        type,
        state,
        messagingNumber: number,
      } as unknown as DeliveryLogEntry;
    });
  });

const queryArbitrary = fc
  .record({
    type: fc.option(fc.constantFrom(...WEBHOOK_TYPES), { nil: undefined }),
    state: fc.option(fc.constantFrom(...DELIVERY_STATES), { nil: undefined }),
    number: fc.option(fc.constantFrom(...NUMBERS), { nil: undefined }),
    page: fc.integer({ min: 0, max: 12 }),
    size: fc.integer({ min: 1, max: 9 }),
  })
  .map((query) => logQuerySchema.parse(query));

it('logPage gives the matching entries newest first, page by page', () => {
  fc.assert(
    fc.property(logArbitrary, queryArbitrary, (log, query) => {
      const filtered = log.filter(
        (e) =>
          (query.type === undefined || e.type === query.type) &&
          (query.state === undefined || e.state === query.state) &&
          (query.number === undefined || e.messagingNumber === query.number),
      );
      const pages = Math.max(1, Math.ceil(filtered.length / query.size));
      const page = Math.min(query.page, pages - 1);
      const newestFirst = [...filtered].reverse();
      const expected = newestFirst.slice(page * query.size, (page + 1) * query.size);
      const got = logPage(log, query);
      expect(got.rows.map((e) => e.sequence)).toEqual(expected.map((e) => e.sequence));
      expect({ total: got.total, page: got.page, pages: got.pages }).toEqual({
        total: filtered.length,
        page,
        pages,
      });
    }),
    { seed: SEED, numRuns: 500 },
  );
});
