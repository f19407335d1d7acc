/**
 * The load's bodies carry a dedupe identity unique across the whole run, not only within one load
 * process: the interleaved rounds start a load process per cell, and a repeated identity is a
 * duplicate that skips the enqueue and flatters the receiver. Needs `npm run build` first.
 */
import { jest } from '@jest/globals';
import { fakeDateOnly } from '../helpers/clock.js';
// @ts-expect-error: a JavaScript module of the bench, without types
import { createBodyFactory } from '../../bench/lib/bodies.js';

type Factory = () => string;

afterEach(() => {
  jest.useRealTimers();
});

function timestampsOf(next: Factory, count: number): number[] {
  return Array.from({ length: count }, () => (JSON.parse(next()) as { timestamp: number }).timestamp);
}

it.each(['session', 'event'])(
  'two %s loads started 2 s apart (adjacent cells at a round reversal) share no identity',
  (type) => {
    fakeDateOnly(Date.UTC(2026, 10, 26));
    const first = createBodyFactory(type, { conversations: 10_000 }) as Factory;
    jest.setSystemTime(Date.UTC(2026, 10, 26) + 2_000);
    const second = createBodyFactory(type, { conversations: 10_000 }) as Factory;
    // More requests of one type than a 1.5 s cell sends.
    const seen = new Set(timestampsOf(first, 20_000));
    const repeated = timestampsOf(second, 20_000).filter((timestamp) => seen.has(timestamp));
    expect(seen.size).toBe(20_000);
    expect(repeated).toEqual([]);
  },
);
