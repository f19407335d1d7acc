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

/** A manual clock: it only moves when advanced or set (a real-time clock whose source stands still). */
export function createClock(options: ClockOptions = {}): EmulatorClock {
  const start = options.start === undefined || options.start === 'real' ? Date.now() : options.start;
  return createRealTimeClock({ start, source: STILL });
}

const STILL = (): number => 0;

/** Options of {@link createRealTimeClock}. */
export interface RealTimeClockOptions {
  /** The time it reads first, Unix milliseconds. @default the wall-clock time */
  readonly start?: number;
  /** Its time source. @default Date.now */
  readonly source?: () => number;
}

/**
 * A clock that runs with real time (the standalone emulator's: two events seconds apart get
 * different timestamps, as on the platform); `advance` and `set` shift it, and it runs on from
 * there.
 */
export function createRealTimeClock(options: RealTimeClockOptions = {}): EmulatorClock {
  const source = options.source ?? Date.now;
  let offset = options.start === undefined ? 0 : options.start - source();
  return {
    now: () => source() + offset,
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new TypeError(`clock.advance expects a finite number of milliseconds >= 0, got ${String(ms)}`);
      }
      offset += ms;
      return source() + offset;
    },
    set(time) {
      if (!Number.isFinite(time))
        throw new TypeError(`clock.set expects Unix milliseconds, got ${String(time)}`);
      offset = time - source();
      return time;
    },
  };
}
