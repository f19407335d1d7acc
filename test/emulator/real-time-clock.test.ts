import { jest } from '@jest/globals';
import { fakeDateOnly } from '../helpers/clock.js';
import { createEmulator, createRealTimeClock } from '../../src/emulator/index.js';
import { SEED } from './harness.js';

// The standalone emulator's clock runs with real time: two identical triggers seconds apart are
// two events with different timestamps (a receiver deduplicating partner events by their fields
// and timestamp must not take the second for a copy of the first). Date is faked; no sleeping.

const T = Date.UTC(2026, 0, 1, 12, 0, 0);
const phoneQuality = {
  messagingNumber: SEED.cloud.msisdn,
  eventType: 'PHONE_QUALITY_CHANGED',
  qualityRating: 'YELLOW',
} as const;

describe('the real-time clock', () => {
  it('follows its source, and advance/set shift it', () => {
    let wall = 1_000;
    const clock = createRealTimeClock({ start: 50_000, source: () => wall });
    expect(clock.now()).toBe(50_000);
    wall += 250;
    expect(clock.now()).toBe(50_250);
    expect(clock.advance(1_000)).toBe(51_250);
    wall += 10;
    expect(clock.now()).toBe(51_260);
    expect(clock.set(7)).toBe(7);
    wall += 3;
    expect(clock.now()).toBe(10);
    expect(() => clock.advance(-1)).toThrow(TypeError);
    expect(() => clock.set(Number.NaN)).toThrow(TypeError);
  });
});

describe("createEmulator({ clock: 'real-time' })", () => {
  beforeEach(() => {
    fakeDateOnly(T);
  });
  afterEach(() => jest.useRealTimers());

  it('gives two identical triggers seconds apart different timestamps', async () => {
    const emulator = createEmulator({ clock: 'real-time' });
    const first = emulator.partnerEvent(phoneQuality);
    jest.setSystemTime(T + 3_000);
    const second = emulator.partnerEvent(phoneQuality);
    expect(first.payload.timestamp).toBe(T);
    expect(second.payload.timestamp).toBe(T + 3_000);
    // reset() does not turn a real-time clock back
    jest.setSystemTime(T + 5_000);
    emulator.reset();
    expect(emulator.clock.now()).toBe(T + 5_000);
    await emulator.close();
  });

  it('starts at a later snapshot time, and runs on from there', async () => {
    const source = createEmulator({ clock: T + 60_000 });
    const snapshot = source.snapshot();
    const restored = createEmulator({ clock: 'real-time', state: snapshot });
    expect(restored.clock.now()).toBe(T + 60_000);
    jest.setSystemTime(T + 1_000);
    expect(restored.clock.now()).toBe(T + 61_000);
    await Promise.all([source.close(), restored.close()]);
  });

  it('keeps the manual clock as the default of createEmulator()', async () => {
    const emulator = createEmulator();
    const first = emulator.partnerEvent(phoneQuality);
    jest.setSystemTime(T + 3_000);
    expect(emulator.partnerEvent(phoneQuality).payload.timestamp).toBe(first.payload.timestamp);
    await emulator.close();
  });

  it('refuses an unknown clock mode', () => {
    expect(() => createEmulator({ clock: 'wall' as never })).toThrow(
      /clock must be 'manual', 'real-time', a start time \(Unix ms\) or an EmulatorClock, got "wall"/,
    );
  });
});
