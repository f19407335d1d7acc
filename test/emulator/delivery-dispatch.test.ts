/*
 * The deliverer POSTs through undici's dispatch with its own handler: a URL undici refuses must
 * still end as a failed delivery in the log (not one stuck in `delivering`, nor a crash).
 */
import { pino } from 'pino';
import { createDeliverer } from '../../src/emulator/emit/delivery.js';

it('logs a URL undici refuses as a failed delivery with the reason', async () => {
  const deliverer = createDeliverer({
    logger: pino({ level: 'silent' }),
    retry: { attempts: 2, backoffMs: 0 },
    timeoutMs: 1000,
    headers: {},
    logLimit: 10,
    concurrency: 2,
  });
  const request = {
    type: 'incoming',
    payload: {},
    messagingNumber: '+27820000001',
    emittedAt: 0,
    faults: [],
  } as const;
  deliverer.enqueue({ ...request, url: 'not a url' });
  deliverer.enqueue({ ...request, url: 'ftp://127.0.0.1/in' });
  await deliverer.idle();
  expect(deliverer.log().map((entry) => [entry.state, entry.attempts, entry.responseStatus])).toEqual([
    ['failed', 2, null],
    ['failed', 2, null],
  ]);
  expect(deliverer.log().map((entry) => entry.error)).toEqual([
    expect.stringMatching(/invalid url/i),
    expect.stringMatching(/protocol/i),
  ]);
  await deliverer.close();
});
