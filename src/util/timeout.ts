/**
 * Settles like `promise`, unless `ms` pass first: then like `onTimeout()` (its value, or its
 * throw). The timer is cleared either way. With `ms` undefined, waits for `promise` alone.
 */
export function withTimeout<T, U = never>(
  promise: Promise<T>,
  ms: number | undefined,
  onTimeout: () => U,
): Promise<T | U> {
  // No deadline: the promise itself, not a wrapper (an async wrapper costs three microtask turns).
  return ms === undefined ? promise : race(promise, ms, onTimeout);
}

async function race<T, U>(promise: Promise<T>, ms: number, onTimeout: () => U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<U>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    }, ms);
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
