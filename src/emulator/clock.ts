import { z } from 'zod';

/**
 * The largest distance from the epoch a `Date` holds, milliseconds (ECMAScript: 100,000,000 days
 * either way). Every time the emulator keeps or accepts (its clock, a snapshot's clock, a flag
 * period's end, a partner event's timestamp) stays within ±this, so every one of them can be
 * written as an ISO 8601 date: a time past it made `toISOString()` throw in the error handler.
 */
export const MAX_EMULATOR_TIME = 8.64e15;

/** A time the emulator accepts, Unix milliseconds: finite and within ±{@link MAX_EMULATOR_TIME}. */
export const emulatorTimeSchema = z
  .number({ error: 'Expected Unix milliseconds (a number)' })
  .min(-MAX_EMULATOR_TIME, `Expected a time a Date can hold (>= -${MAX_EMULATOR_TIME} ms)`)
  .max(MAX_EMULATOR_TIME, `Expected a time a Date can hold (<= ${MAX_EMULATOR_TIME} ms)`);

/** An amount the clock may move forward by, milliseconds: >= 0, and no more than the whole range. */
export const clockAdvanceSchema = z
  .number({ error: 'Expected milliseconds (a number)' })
  .min(0, 'Expected milliseconds >= 0')
  .max(2 * MAX_EMULATOR_TIME, `Expected at most ${2 * MAX_EMULATOR_TIME} ms`);

/**
 * Thrown by a clock asked to leave the range a `Date` holds (see {@link MAX_EMULATOR_TIME}), or
 * given a value that is not a time; the clock is left where it was.
 */
export class ClockValueError extends TypeError {
  override readonly name = 'ClockValueError';
}

/**
 * The emulator's clock. Every timestamp the emulator writes (payload timestamps, flag
 * periods, sentTime, deliveryTime...) reads it, and tests move it forward instead of sleeping.
 * Delivery timeouts and retry backoff use real timers: they concern the socket, not the
 * platform's notion of time.
 */
export interface EmulatorClock {
  /** Current emulator time, Unix milliseconds. */
  now(): number;
  /**
   * Moves the clock forward by `ms` (must be ≥ 0) and returns the new time. Throws a
   * {@link ClockValueError} (and stays put) past {@link MAX_EMULATOR_TIME}.
   */
  advance(ms: number): number;
  /**
   * Sets the clock to an absolute time (Unix milliseconds, within ±{@link MAX_EMULATOR_TIME}) and
   * returns it; a {@link ClockValueError} otherwise.
   */
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
  checkTime('createClock: start', start);
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
  if (options.start !== undefined) checkTime('createRealTimeClock: start', options.start);
  let offset = options.start === undefined ? 0 : options.start - source();
  // a running clock set near the end of the range stays at its end rather than leave it
  const now = (): number => clampTime(source() + offset);
  return {
    now,
    advance(ms) {
      if (!clockAdvanceSchema.safeParse(ms).success) {
        throw new ClockValueError(
          `clock.advance expects a finite number of milliseconds >= 0, got ${String(ms)}`,
        );
      }
      const next = now() + ms;
      if (next > MAX_EMULATOR_TIME) {
        throw new ClockValueError(
          `clock.advance: ${String(ms)} ms would take the clock past ${MAX_EMULATOR_TIME} ms, the last time a Date holds`,
        );
      }
      offset = next - source();
      return next;
    },
    set(time) {
      checkTime('clock.set', time);
      offset = time - source();
      return time;
    },
  };
}

/** Throws a {@link ClockValueError} unless `time` is Unix milliseconds a Date holds. */
function checkTime(what: string, time: unknown): void {
  if (!emulatorTimeSchema.safeParse(time).success) {
    throw new ClockValueError(
      `${what} expects Unix milliseconds within ±${MAX_EMULATOR_TIME} (what a Date holds), got ${String(time)}`,
    );
  }
}

const clampTime = (time: number): number =>
  time > MAX_EMULATOR_TIME ? MAX_EMULATOR_TIME : time < -MAX_EMULATOR_TIME ? -MAX_EMULATOR_TIME : time;
