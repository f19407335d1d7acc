/**
 * The emulator's clock. Every timestamp the emulator writes (payload timestamps, flag
 * periods, sentTime, deliveryTime...) reads it, and tests move it forward instead of sleeping.
 * Delivery timeouts and retry backoff use real timers: they concern the socket, not the
 * platform's notion of time.
 */
export interface EmulatorClock {
  /** Current emulator time, Unix milliseconds. */
  now(): number;
  /** Moves the clock forward by `ms` (must be ≥ 0) and returns the new time. */
  advance(ms: number): number;
  /** Sets the clock to an absolute time (Unix milliseconds) and returns it. */
  set(time: number): number;
}

/** Options of {@link createClock}. */
export interface ClockOptions {
  /**
   * Start time, Unix milliseconds, or `'real'` to start at the wall-clock time.
   * @default 'real'
   */
  readonly start?: number | 'real';
}

/** A manual clock: it only moves when advanced or set. */
export function createClock(options: ClockOptions = {}): EmulatorClock {
  let current = options.start === undefined || options.start === 'real' ? Date.now() : options.start;
  return {
    now: () => current,
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new TypeError(`clock.advance expects a finite number of milliseconds >= 0, got ${String(ms)}`);
      }
      current += ms;
      return current;
    },
    set(time) {
      if (!Number.isFinite(time))
        throw new TypeError(`clock.set expects Unix milliseconds, got ${String(time)}`);
      current = time;
      return current;
    },
  };
}
