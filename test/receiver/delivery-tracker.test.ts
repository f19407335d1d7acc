import { createDeliveryTracker } from '../../src/delivery/tracker.js';
import { DELIVERY_TRANSITIONS } from '../../src/schemas/index.js';

describe('forward-only delivery tracker', () => {
  it.each(DELIVERY_TRANSITIONS.map((t) => [t.from, t.to]))(
    'applies the documented transition %s → %s',
    (from, to) => {
      const tracker = createDeliveryTracker();
      tracker.apply('m', from);
      expect(tracker.apply('m', to)).toMatchObject({ previous: from, current: to, applied: true });
    },
  );

  const rows: { receipts: string[]; final: string; ignored: (string | undefined)[] }[] = [
    {
      receipts: ['ACCEPTED', 'SENT', 'DELIVERED', 'READ', 'PLAYED'],
      final: 'PLAYED',
      ignored: [undefined, undefined, undefined, undefined, undefined],
    },
    { receipts: ['SENT', 'ACCEPTED'], final: 'SENT', ignored: [undefined, 'regression'] },
    {
      receipts: ['READ', 'DELIVERED', 'SENT'],
      final: 'READ',
      ignored: [undefined, 'regression', 'regression'],
    },
    { receipts: ['ACCEPTED', 'READ'], final: 'READ', ignored: [undefined, undefined] },
    { receipts: ['SENT', 'SENT'], final: 'SENT', ignored: [undefined, 'repeat'] },
    {
      receipts: ['SENT', 'FAILED', 'DELIVERED'],
      final: 'FAILED',
      ignored: [undefined, undefined, 'after-failure'],
    },
    { receipts: ['ACCEPTED', 'FAILED'], final: 'FAILED', ignored: [undefined, undefined] },
    { receipts: ['DELIVERED', 'FAILED'], final: 'DELIVERED', ignored: [undefined, 'regression'] },
    { receipts: ['SENT', 'QUEUED'], final: 'SENT', ignored: [undefined, 'unlisted'] },
  ];

  it.each(rows)('$receipts ends at $final', ({ receipts, final, ignored }) => {
    const tracker = createDeliveryTracker();
    const changes = receipts.map((status) => tracker.apply('m', status));
    expect(changes.map((change) => change.ignored)).toEqual(ignored);
    expect(changes.map((change) => change.applied)).toEqual(ignored.map((reason) => reason === undefined));
    expect(tracker.get('m')).toBe(final);
  });

  it('tracks messages independently and forgets the least recently updated past max', () => {
    const tracker = createDeliveryTracker({ max: 2 });
    tracker.apply('a', 'SENT');
    tracker.apply('b', 'SENT');
    tracker.apply('c', 'SENT');
    expect(tracker.get('a')).toBeUndefined();
    expect(tracker.get('c')).toBe('SENT');
  });
});
