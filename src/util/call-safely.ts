import type { Logger } from 'pino';

/**
 * Calls a user hook (onError, onDeadLetter, onInvalid) without letting it hurt the caller: a
 * throw or a rejection is logged, never propagated, and a returned promise is not awaited.
 */
export function callSafely(logger: Logger, name: string, hook: () => unknown): void {
  try {
    const result = hook();
    if (result instanceof Promise)
      result.catch((error: unknown) => logger.error({ err: error }, `${name} rejected`));
  } catch (error) {
    logger.error({ err: error }, `${name} threw`);
  }
}
