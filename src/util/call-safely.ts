import type { Logger } from 'pino';

/**
 * Calls a user hook (onError, onDeadLetter, onInvalid), or a report that goes through the user's
 * logger, without letting it hurt the caller: a throw or a rejection is logged (when there is a
 * logger to tell), never propagated, and a returned promise is not awaited. A logger that throws
 * while logging is swallowed too: nothing is left to tell it to, and the caller must move on.
 */
export function callSafely(logger: Logger | undefined, name: string, hook: () => unknown): void {
  try {
    const result = hook();
    if (result instanceof Promise)
      result.catch((error: unknown) => report(logger, error, `${name} rejected`));
  } catch (error) {
    report(logger, error, `${name} threw`);
  }
}

function report(logger: Logger | undefined, error: unknown, message: string): void {
  try {
    logger?.error({ err: error }, message);
  } catch {
    // The logger itself failed.
  }
}
