import { createClock, createEmulator } from '../../src/emulator/index.js';
import { SEED } from './harness.js';

describe('emulator clock', () => {
  it('an injected clock drives every timestamp and is left alone by reset()', () => {
    const clock = createClock({ start: 1_000_000 });
    const emulator = createEmulator({ clock, retry: { attempts: 1 } });
    clock.advance(500);
    const { payload } = emulator.partnerEvent({
      messagingNumber: SEED.cloud.msisdn,
      eventType: 'USER_CHANGED_NUMBER',
      oldNumber: '1',
      newNumber: '2',
    });
    expect(payload.timestamp).toBe(1_000_500);
    emulator.reset();
    expect(clock.now()).toBe(1_000_500);
  });

  it('an owned clock starts where asked, only moves when told, and reset() rewinds it', () => {
    const emulator = createEmulator({ clock: 42 });
    expect(emulator.clock.now()).toBe(42);
    expect(emulator.advanceClock(8)).toBe(50);
    expect(emulator.setClock(100)).toBe(100);
    emulator.reset();
    expect(emulator.clock.now()).toBe(42);
  });

  it('refuses negative or non-finite moves', () => {
    const clock = createClock({ start: 0 });
    expect(() => clock.advance(-1)).toThrow(TypeError);
    expect(() => clock.advance(Number.NaN)).toThrow(TypeError);
    expect(() => clock.set(Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });
});
