// The in-flight count both dispatchers (BullMQ's and Cloudflare Queues') wait on in close() and idle().
import { createInflight } from '../../src/util/inflight.js';

const settledYet = async (promise: Promise<void>): Promise<boolean> => {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

describe('createInflight', () => {
  it('resolves none() at once when nothing is in flight', async () => {
    await expect(settledYet(createInflight().none())).resolves.toBe(true);
  });

  it('resolves every waiter once the last operation leaves, not before', async () => {
    const inflight = createInflight();
    inflight.enter();
    inflight.enter();
    const first = inflight.none();
    const second = inflight.none();
    inflight.leave();
    await expect(settledYet(first)).resolves.toBe(false);
    inflight.leave();
    await expect(settledYet(first)).resolves.toBe(true);
    await expect(settledYet(second)).resolves.toBe(true);
  });

  it('waits again for operations entered after a zero; leave works handed over as a callback', async () => {
    const inflight = createInflight();
    inflight.enter();
    inflight.leave();
    inflight.enter();
    const waiting = inflight.none();
    await expect(settledYet(waiting)).resolves.toBe(false);
    const { leave } = inflight;
    leave();
    await expect(settledYet(waiting)).resolves.toBe(true);
  });
});
