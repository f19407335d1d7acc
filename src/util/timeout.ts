/**
 * Settles like `promise`, unless `ms` pass first: then like `onTimeout()` (its value, or its
 * throw). The timer is cleared either way. With `ms` undefined, waits for `promise` alone.
 */
export async function withTimeout<T, U = never>(
  promise: Promise<T>,
  ms: number | undefined,
  onTimeout: () => U,
): Promise<T | U> {
  if (ms === undefined) return promise;
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
