import type { Logger } from 'pino';

const noop = (): void => undefined;

/**
 * pino's numeric level values, for code that reads `logger.levels` (pino's defaults; `silent` is
 * Infinity).
 */
const LEVELS = {
  values: { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 },
  labels: { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' },
};

/**
 * The logger the library uses when none is given: pino's logging API with every level off. It
 * writes nothing, as `pino({ level: 'silent' })` would, without loading pino: a receiver bundled
 * for a Worker carries no logger it has no use for. Children keep their bindings (`bindings()`),
 * so code that reads them sees what a pino child would show.
 */
export function createSilentLogger(bindings: Readonly<Record<string, unknown>> = {}): Logger {
  let own = { ...bindings };
  const logger = {
    level: 'silent',
    levelVal: Infinity,
    levels: LEVELS,
    msgPrefix: '',
    fatal: noop,
    error: noop,
    warn: noop,
    info: noop,
    debug: noop,
    trace: noop,
    silent: noop,
    isLevelEnabled: (): boolean => false,
    bindings: (): Record<string, unknown> => ({ ...own }),
    setBindings(more: Readonly<Record<string, unknown>>): void {
      own = { ...own, ...more };
    },
    child: (more: Readonly<Record<string, unknown>>): Logger => createSilentLogger({ ...own, ...more }),
    flush(callback?: (error?: Error) => void): void {
      callback?.();
    },
  };
  // The subset of pino's Logger a library or a callback calls; it is never a transport or an
  // event emitter, which is what the rest of pino's type describes.
  return logger as unknown as Logger;
}
