/** Operations started and not finished yet, and a wait for there being none. */
export interface Inflight {
  /** One more operation started. */
  readonly enter: () => void;
  /** One operation finished (a function of its own, so it can be handed over as a callback). */
  readonly leave: () => void;
  /** Resolves once no operation is in flight (at once when none is). */
  readonly none: () => Promise<void>;
}

/**
 * What a dispatcher's `close()` and `idle()` wait for: the adds or sends still on their way. A
 * count and the waiters of its next zero; no promise per operation, since `enter` and `leave` run
 * on the request path.
 */
export function createInflight(): Inflight {
  let count = 0;
  let waiters: (() => void)[] = [];
  return {
    enter: () => {
      count += 1;
    },
    leave: () => {
      count -= 1;
      if (count === 0 && waiters.length > 0) {
        const settled = waiters;
        waiters = [];
        for (const resolve of settled) resolve();
      }
    },
    none: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}
