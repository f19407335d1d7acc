import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createMemoryDedupeStore } from '../../src/dedupe/index.js';

/**
 * The in-memory store's contract at its edges: how long a claim holds, which key goes first when
 * the store is full, and that looking at a key does not change either. The store reads a
 * monotonic clock (performance.now, moved here by a spy); timers are faked and moved with it, so
 * the tests hold for a store that caches its clock reading for a while (lru-cache's TTL did).
 */
describe('createMemoryDedupeStore', () => {
  let now = 1_000_000;
  const advance = (ms: number): void => {
    now += ms;
    jest.advanceTimersByTime(ms);
  };

  beforeEach(() => {
    now = 1_000_000;
    jest.useFakeTimers({ doNotFake: ['performance'] });
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('answers a second claim of a key as a duplicate, and a released key as new', () => {
    const store = createMemoryDedupeStore();
    expect(store.claim('a')).toBe(true);
    expect(store.claim('a')).toBe(false);
    void store.release('a');
    expect(store.claim('a')).toBe(true);
    expect(store.claim('a')).toBe(false);
  });

  it('keeps a claim for ttlMs, then accepts the key again, for another ttlMs', () => {
    const store = createMemoryDedupeStore({ ttlMs: 10_000 });
    expect(store.claim('a')).toBe(true);
    advance(9_000);
    expect(store.claim('a')).toBe(false);
    // Past the TTL by more than a cached clock reading could lag (one second).
    advance(2_500);
    expect(store.claim('a')).toBe(true);
    advance(9_000);
    expect(store.claim('a')).toBe(false);
    advance(2_500);
    expect(store.claim('a')).toBe(true);
  });

  it('holds a claim for a TTL shorter than a second', () => {
    // An unfaked clock would pass 200 ms on a loaded machine between two claims: hence the spy.
    const store = createMemoryDedupeStore({ ttlMs: 200 });
    expect(store.claim('a')).toBe(true);
    advance(100);
    expect(store.claim('a')).toBe(false);
    advance(250);
    expect(store.claim('a')).toBe(true);
  });

  it('forgets the least recently inserted key first when full; a duplicate claim does not refresh it', () => {
    const store = createMemoryDedupeStore({ max: 3 });
    for (const key of ['a', 'b', 'c']) expect(store.claim(key)).toBe(true);
    // Seen again: still the oldest insertion.
    expect(store.claim('a')).toBe(false);
    expect(store.claim('d')).toBe(true); // evicts a
    expect(store.claim('b')).toBe(false);
    expect(store.claim('a')).toBe(true); // evicts b (a duplicate claim of b did not refresh it)
    expect(store.claim('c')).toBe(false);
    expect(store.claim('d')).toBe(false);
    expect(store.claim('b')).toBe(true); // evicts c
    expect(store.claim('c')).toBe(true);
  });

  it('counts an expired key claimed again as a new insertion', () => {
    const store = createMemoryDedupeStore({ max: 2, ttlMs: 1_000 });
    expect(store.claim('a')).toBe(true);
    expect(store.claim('b')).toBe(true);
    advance(2_500);
    expect(store.claim('a')).toBe(true); // expired: claimed again, now the newest
    expect(store.claim('c')).toBe(true); // evicts b, the oldest insertion
    expect(store.claim('a')).toBe(false);
    expect(store.claim('b')).toBe(true);
  });

  it('keeps a long key (over 64 characters) as its digest: claimed once, released by the same key', () => {
    const store = createMemoryDedupeStore();
    const long = 'k'.repeat(10_000);
    expect(store.claim(long)).toBe(true);
    expect(store.claim(long)).toBe(false);
    expect(store.claim(`${long}x`)).toBe(true);
    void store.release(long);
    expect(store.claim(long)).toBe(true);
  });
});

describe('createMemoryDedupeStore without a clock spy', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('leaves no timer scheduled by claims (fake timers count them)', () => {
    jest.useFakeTimers();
    const store = createMemoryDedupeStore();
    for (const key of ['a', 'b', 'a']) void store.claim(key);
    expect(jest.getTimerCount()).toBe(0);
  });
});
