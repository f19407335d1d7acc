import type { BackoffOptions, RetryOptions } from './types.js';

const DEFAULT_RETRY_ATTEMPTS = 3;

/** Milliseconds to wait before attempt `attempt + 1`, after attempt `attempt` failed. */
export function backoffDelay(backoff: BackoffOptions | undefined, attempt: number): number {
  const delay = backoff?.delay ?? 1000;
  const max = backoff?.maxDelay ?? 60_000;
  const wait = (backoff?.type ?? 'exponential') === 'fixed' ? delay : delay * 2 ** (attempt - 1);
  return Math.min(wait, max);
}

/** Validates retry options at construction. */
export function resolveRetry(retry: RetryOptions | undefined): RetryOptions & { readonly attempts: number } {
  const attempts = retry?.attempts ?? DEFAULT_RETRY_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new TypeError(`retry.attempts: expected an integer >= 1, got ${String(attempts)}`);
  }
  const delay = retry?.backoff?.delay;
  if (delay !== undefined && !(delay >= 0)) {
    throw new TypeError(`retry.backoff.delay: expected a number >= 0, got ${String(delay)}`);
  }
  return { ...retry, attempts };
}
