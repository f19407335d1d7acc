import { jest } from '@jest/globals';

/**
 * Fakes `Date` alone, starting at `now`: timers, ticks, microtasks and `performance` stay real, so
 * a server under test keeps working while a test moves the wall clock with `jest.setSystemTime`.
 * Undo with `jest.useRealTimers()`.
 */
export function fakeDateOnly(now: number): void {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'setTimeout',
      'clearTimeout',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'nextTick',
      'queueMicrotask',
      'hrtime',
      'performance',
    ],
  });
}
