/** A promise bounded by {@link createDeadlines}, waiting for its outcome or its deadline. */
interface Pending {
  readonly reject: (error: Error) => void;
  /** The bucket of promises started in the same tick; its deadline is theirs. */
  readonly bucket: Set<Pending>;
}

/** Deadlines shared by many promises. */
export interface Deadlines {
  /**
   * Settles like `promise` (its value passed through `map`), or rejects with the timeout error
   * once its deadline has passed. `settled` runs when `promise` settles, deadline passed or not.
   */
  bound<T, R = T>(promise: Promise<T>, map?: (value: T) => R, settled?: () => void): Promise<R>;
  /** Stops the timer; pending promises keep waiting for their own outcome. */
  stop(): void;
}

/**
 * Bounds many promises by the same `timeoutMs` with one coarse timer for all of them, armed only
 * while some are pending, rather than a timer (and a race) per promise: the request path of a
 * Redis receiver bounds every event it enqueues, thousands a second. Each bounded promise settles
 * like its own, or rejects with `timeoutError()` after between `timeoutMs` less two ticks and
 * `timeoutMs` (a tick is a sixteenth of it, at least 10 ms): promises started in one tick share a
 * bucket, and a bucket expires as a whole.
 */
export function createDeadlines(timeoutMs: number, timeoutError: () => Error): Deadlines {
  const tickMs = Math.max(10, Math.floor(timeoutMs / 16));
  // A promise waits between `expireAfter` and `expireAfter + 1` ticks: never past `timeoutMs`.
  const expireAfter = Math.max(1, Math.floor(timeoutMs / tickMs) - 1);
  let current = new Set<Pending>();
  let older: Set<Pending>[] = [];
  let pending = 0;
  let timer: NodeJS.Timeout | undefined;

  function tick(): void {
    older.push(current);
    current = new Set();
    while (older.length > expireAfter) {
      const expired = older.shift()!;
      for (const entry of expired) {
        pending -= 1;
        entry.reject(timeoutError());
      }
      expired.clear();
    }
    if (pending === 0) {
      clearInterval(timer);
      timer = undefined;
      older = [];
    }
  }

  return {
    bound<T, R = T>(promise: Promise<T>, map?: (value: T) => R, settled?: () => void): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        const entry: Pending = { reject, bucket: current };
        current.add(entry);
        pending += 1;
        if (timer === undefined) {
          timer = setInterval(tick, tickMs);
          timer.unref();
        }
        promise.then(
          (value) => {
            settled?.();
            if (!entry.bucket.delete(entry)) return; // expired already: answered as a timeout
            pending -= 1;
            try {
              resolve(map === undefined ? (value as unknown as R) : map(value));
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          },
          (error: unknown) => {
            settled?.();
            if (!entry.bucket.delete(entry)) return;
            pending -= 1;
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      });
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
