// The durable hand-off on Workers, in workerd through miniflare: the receiver sends each
// acknowledged event to a Cloudflare Queue (createQueuesDispatcher), the Worker's queue handler
// runs it (createQueueConsumer) with Queues' retries and dead-letter queue, and the dedupe store is
// a Durable Object (createDurableObjectDedupeStore, WebhookDedupeObject).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildIncoming } from '../../src/testing/index.js';
import { bundleWorker, startWorkerd, type Workerd } from './workerd.js';

const MAX_RETRIES = 2;

const WORKER = `
import { createFetchHandler } from 'messaging-webhooks';
import {
  createDurableObjectDedupeStore,
  createQueueConsumer,
  createQueuesDispatcher,
} from 'messaging-webhooks/cloudflare';
export { WebhookDedupeObject } from 'messaging-webhooks/cloudflare';

const state = { runs: [], errors: [], deadLetters: [], deadLetterQueue: [] };
const consumer = createQueueConsumer({
  maxRetries: ${MAX_RETRIES},
  backoff: false,
  handlers: {
    onIncoming: async (message, ctx) => {
      state.runs.push({ text: message.text, attempt: ctx.attempt });
      if (message.text.startsWith('fail')) throw new Error('callback failed');
    },
    onError: (error, ctx) => state.errors.push({ attempt: ctx.attempt, willRetry: ctx.willRetry }),
    onDeadLetter: (deadLetter) =>
      state.deadLetters.push({ text: deadLetter.job.payload.text, attempts: deadLetter.attempts }),
  },
});

let handler;
export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === '/state') return Response.json(state);
    if (pathname === '/store') {
      // The store's lease rules, run against the Durable Object.
      const store = createDurableObjectDedupeStore({ namespace: env.DEDUPE });
      const key = 'store-rules:' + crypto.randomUUID();
      const outcomes = [];
      outcomes.push(await store.claim(key));
      outcomes.push(await store.claim(key).catch((error) => error.code));
      await store.release(key);
      outcomes.push(await store.claim(key));
      await store.confirm(key);
      outcomes.push(await store.claim(key));
      await store.release(key);
      outcomes.push(await store.claim(key));
      await store.forget(key);
      outcomes.push(await store.claim(key));
      return Response.json(outcomes);
    }
    handler ??= createFetchHandler({
      token: 'secret',
      basePath: '/webhooks',
      dispatcher: createQueuesDispatcher({ queue: env.WEBHOOKS }),
      dedupe: { store: createDurableObjectDedupeStore({ namespace: env.DEDUPE }) },
    });
    return handler(request, ctx);
  },
  async queue(batch, env, ctx) {
    if (batch.queue === 'webhooks-dead') {
      for (const message of batch.messages) {
        state.deadLetterQueue.push(message.body);
        message.ack();
      }
      return;
    }
    await consumer(batch, env, ctx);
  },
};
`;

interface State {
  runs: { text: string; attempt: number }[];
  errors: { attempt: number; willRetry: boolean }[];
  deadLetters: { text: string; attempts: number }[];
  deadLetterQueue: { type: string; payload: { text: string } }[];
}

let workerd: Workerd;

beforeAll(async () => {
  workerd = await startWorkerd((await bundleWorker(WORKER)).code, {
    queueProducers: { WEBHOOKS: 'webhooks' },
    queueConsumers: {
      webhooks: { maxBatchTimeout: 0, maxRetries: MAX_RETRIES, deadLetterQueue: 'webhooks-dead' },
      'webhooks-dead': { maxBatchTimeout: 0 },
    },
    durableObjects: { DEDUPE: 'WebhookDedupeObject' },
  });
}, 60_000);

afterAll(async () => {
  await workerd?.dispose();
});

async function state(): Promise<State> {
  return (await (await workerd.mf.dispatchFetch('http://worker/state')).json()) as State;
}

async function post(payload: object): Promise<{ status: number; body: unknown }> {
  const response = await workerd.mf.dispatchFetch('http://worker/webhooks/incoming', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-token': 'secret' },
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: await response.json() };
}

const runsOf = (current: State, text: string) => current.runs.filter((run) => run.text === text);

describe('Cloudflare Queues dispatcher and consumer', () => {
  it('acknowledges an event once it is in the queue, and the queue handler runs its callback', async () => {
    const text = `hello ${crypto.randomUUID()}`;
    expect(await post(buildIncoming({ text }))).toEqual({ status: 200, body: { received: true } });
    await workerd.until('the callback', async () => runsOf(await state(), text).length === 1);
    expect(runsOf(await state(), text)).toEqual([{ text, attempt: 1 }]);
  });

  it('retries a callback that throws on every delivery Queues allows, then dead-letters it', async () => {
    const text = `fail ${crypto.randomUUID()}`;
    expect((await post(buildIncoming({ text }))).status).toBe(200);
    await workerd.until('the dead-letter queue', async () =>
      (await state()).deadLetterQueue.some((job) => job.payload.text === text),
    );
    const current = await state();
    expect(runsOf(current, text).map((run) => run.attempt)).toEqual([1, 2, 3]);
    expect(current.errors.slice(-3)).toEqual([
      { attempt: 1, willRetry: true },
      { attempt: 2, willRetry: true },
      { attempt: 3, willRetry: false },
    ]);
    expect(current.deadLetters).toContainEqual({ text, attempts: MAX_RETRIES + 1 });
    // Queues moved the message itself: the job as the receiver sent it.
    expect(current.deadLetterQueue.find((job) => job.payload.text === text)).toMatchObject({
      type: 'incoming',
      payload: { text },
    });
  });

  it('answers 503 for an event too large for a Queues message, and releases its claim for the retry', async () => {
    const payload = buildIncoming({ text: `large ${'x'.repeat(130_000)}` });
    const first = await post(payload);
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ error: { code: 'store_unavailable' } });
    // Neither a duplicate nor held by a lease: the claim was released when the send was refused.
    const retry = await post(payload);
    expect(retry.status).toBe(503);
    expect(retry.body).toMatchObject({ error: { code: 'store_unavailable' } });
  });
});

describe('Durable Object dedupe store', () => {
  it('runs one callback for an event delivered twice', async () => {
    const text = `twice ${crypto.randomUUID()}`;
    const payload = buildIncoming({ text });
    expect(await post(payload)).toEqual({ status: 200, body: { received: true } });
    expect(await post(payload)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    // A later event of the same conversation, sent after the duplicate was answered, has run:
    // the duplicate, had it been queued, was queued before it.
    const after = `after ${crypto.randomUUID()}`;
    expect((await post(buildIncoming({ text: after }))).status).toBe(200);
    await workerd.until('the later event', async () => runsOf(await state(), after).length === 1);
    expect(runsOf(await state(), text)).toHaveLength(1);
  });

  it('accepts exactly one of two concurrent deliveries of one event', async () => {
    const text = `race ${crypto.randomUUID()}`;
    const payload = buildIncoming({ text });
    const answers = await Promise.all([post(payload), post(payload)]);
    const accepted = answers.filter((answer) => JSON.stringify(answer.body) === '{"received":true}');
    expect(accepted).toHaveLength(1);
    // The other is a duplicate (200) or, while the first claim is a lease, 503 claim_held.
    const other = answers.find((answer) => answer !== accepted[0])!;
    expect([200, 503]).toContain(other.status);
    const after = `after ${crypto.randomUUID()}`;
    expect((await post(buildIncoming({ text: after }))).status).toBe(200);
    await workerd.until('the later event', async () => runsOf(await state(), after).length === 1);
    expect(runsOf(await state(), text)).toHaveLength(1);
  });

  it('keeps a lease from a second claim, frees it on release, and keeps a confirmed claim until forgotten', async () => {
    const outcomes = await (await workerd.mf.dispatchFetch('http://worker/store')).json();
    expect(outcomes).toEqual([
      true, // claimed: a lease
      'dedupe_claim_pending', // a second claim during the lease (the pipeline answers 503 claim_held)
      true, // released, then claimed again
      false, // confirmed: a duplicate
      false, // a release does not undo a confirmed claim
      true, // forgotten: claimed again
    ]);
  });
});
