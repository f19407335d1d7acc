/** The emulator, as {@link settle} uses it: its idle() and its delivery log's change feed. */
export interface SettleEmulator {
  /** Resolves `{ idle: false }` when its wait bound passed with deliveries still pending. */
  idle(): Promise<{ readonly idle: boolean } | void>;
  subscribeDeliveries(listener: (entry: unknown) => void): () => void;
}

/**
 * A receiver, as {@link settle} uses it: the Express router, the node and fetch handlers and
 * Fastify's `app.webhooks` all are one (`idle()` and `stats()`).
 */
export interface SettleReceiver {
  idle(): Promise<void>;
  stats(): unknown;
}

/** Passes after which {@link settle} gives up: work that keeps causing work is a loop, not a wait. */
export const SETTLE_MAX_PASSES = 100;

/**
 * Waits until the emulator and every receiver given have nothing in flight: no delivery queued,
 * held or waiting for a retry, no callback queued, running or waiting for a retry. One pass waits
 * for the emulator's `idle()`, then each receiver's; a callback that answers the customer (a bot's
 * `ctx.reply`) makes the emulator deliver again, so passes repeat until one in which nothing
 * happened: no delivery created or changed, no receiver counted anything. Rejects after
 * {@link SETTLE_MAX_PASSES} busy passes (a bot answering its own OUTGOING events never settles).
 *
 * @example
 * emulator.customerMessage({ number, from, text: 'Hi' });
 * await settle(emulator, webhooks);
 */
export async function settle(
  emulator: SettleEmulator,
  ...receivers: readonly SettleReceiver[]
): Promise<void> {
  let changes = 0;
  const unsubscribe = emulator.subscribeDeliveries(() => {
    changes += 1;
  });
  const counted = (): string => JSON.stringify(receivers.map((receiver) => receiver.stats()));
  try {
    for (let pass = 0; pass < SETTLE_MAX_PASSES; pass += 1) {
      const changesBefore = changes;
      const countsBefore = counted();
      const report = await emulator.idle();
      if (report?.idle === false) {
        throw new Error(
          'settle: the emulator still had deliveries pending when its idle() wait bound passed',
        );
      }
      for (const receiver of receivers) await receiver.idle();
      if (changes === changesBefore && counted() === countsBefore) return;
    }
  } finally {
    unsubscribe();
  }
  throw new Error(
    `settle: still busy after ${SETTLE_MAX_PASSES} passes: deliveries and callbacks keep causing each other (a bot answering its own OUTGOING events?)`,
  );
}
