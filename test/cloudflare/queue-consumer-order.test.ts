// The queue handler's rules within one batch, which workerd's batching does not let a test
// arrange: a batch is plain data (id, body, attempts, ack, retry), built here as Queues hands it.
import { describe, expect, it } from '@jest/globals';
import {
  createQueueConsumer,
  createQueuesDispatcher,
  createDurableObjectDedupeStore,
  type QueueMessage,
} from '../../src/cloudflare/index.js';
import type { WebhookJob } from '../../src/dispatch/types.js';
import { buildIncoming } from '../../src/testing/index.js';

interface Recorded extends QueueMessage {
  outcome: 'ack' | { retry: { delaySeconds?: number } | undefined } | undefined;
}

function jobOf(text: string, sender: string, receivedAt: number): WebhookJob<'incoming'> {
  return {
    type: 'incoming',
    payload: buildIncoming({ text, sender }),
    requestId: `request-${text}`,
    receivedAt,
    orderingKey: `incoming:${sender}:`,
  };
}

function messageOf(body: unknown, attempts = 1): Recorded {
  const message: Recorded = {
    id: String(Math.random()),
    timestamp: new Date(0),
    body,
    attempts,
    outcome: undefined,
    ack() {
      message.outcome ??= 'ack';
    },
    retry(options) {
      message.outcome ??= { retry: options };
    },
  };
  return message;
}

describe('the Queues consumer within a batch', () => {
  it("runs one conversation's events one at a time in the order the receiver took them in", async () => {
    const order: string[] = [];
    let running = 0;
    const consumer = createQueueConsumer({
      handlers: {
        onIncoming: async (message) => {
          running += 1;
          expect(running).toBe(1);
          await Promise.resolve();
          order.push(message.text ?? '');
          running -= 1;
        },
      },
    });
    // Batch order differs from arrival order: the handler sorts by receivedAt.
    const batch = [jobOf('second', 'a', 2), jobOf('first', 'a', 1), jobOf('third', 'a', 3)].map((job) =>
      messageOf(job),
    );
    await consumer({ queue: 'webhooks', messages: batch });
    expect(order).toEqual(['first', 'second', 'third']);
    expect(batch.map((message) => message.outcome)).toEqual(['ack', 'ack', 'ack']);
  });

  it("sends a conversation's later events back with a failed one that will be retried, and runs other conversations", async () => {
    const ran: string[] = [];
    const consumer = createQueueConsumer({
      backoff: { type: 'fixed', delay: 2500 },
      handlers: {
        onIncoming: (message) => {
          ran.push(message.text ?? '');
          if (message.text === 'fails') throw new Error('down');
        },
      },
    });
    const fails = messageOf(jobOf('fails', 'a', 1));
    const after = messageOf(jobOf('after', 'a', 2));
    const other = messageOf(jobOf('other', 'b', 3));
    await consumer({ queue: 'webhooks', messages: [fails, after, other] });
    expect(ran.sort()).toEqual(['fails', 'other']);
    // Rounded up to whole seconds, and the held event comes back after the same delay.
    expect(fails.outcome).toEqual({ retry: { delaySeconds: 3 } });
    expect(after.outcome).toEqual({ retry: { delaySeconds: 3 } });
    expect(other.outcome).toBe('ack');
  });

  it('dead-letters on the last delivery, then runs the conversation on; a held event on its own last delivery runs', async () => {
    const ran: string[] = [];
    const deadLettered: number[] = [];
    const consumer = createQueueConsumer({
      maxRetries: 1,
      handlers: {
        onIncoming: (message) => {
          ran.push(message.text ?? '');
          if (message.text?.startsWith('fails')) throw new Error('down');
        },
        onDeadLetter: (deadLetter) => deadLettered.push(deadLetter.attempts),
      },
    });
    // `fails` is on its last delivery (attempts 2 > maxRetries 1): dead-lettered, `next` runs.
    const last = messageOf(jobOf('fails-last', 'a', 1), 2);
    const next = messageOf(jobOf('next', 'a', 2));
    // `fails-again` will be retried; `held-last` is on its last delivery, so it runs anyway.
    const retried = messageOf(jobOf('fails-again', 'b', 1), 1);
    const heldLast = messageOf(jobOf('held-last', 'b', 2), 2);
    await consumer({ queue: 'webhooks', messages: [last, next, retried, heldLast] });
    expect(ran.sort()).toEqual(['fails-again', 'fails-last', 'held-last', 'next']);
    expect(deadLettered).toEqual([2]);
    // Past max_retries, retry() is what makes Queues move the message to the dead-letter queue.
    expect(last.outcome).toEqual({ retry: undefined });
    expect(next.outcome).toBe('ack');
    expect(retried.outcome).toEqual({ retry: { delaySeconds: 1 } });
    expect(heldLast.outcome).toBe('ack');
  });

  it('retries a message that is not a webhook job, so that it ends in the dead-letter queue', async () => {
    const consumer = createQueueConsumer({ handlers: { onIncoming: () => undefined } });
    const stranger = messageOf({ hello: 'world' });
    await consumer({ queue: 'webhooks', messages: [stranger] });
    expect(stranger.outcome).toEqual({ retry: undefined });
  });
});

describe('construction', () => {
  it.each([
    ['createQueueConsumer', () => createQueueConsumer({ handlers: {}, maxRetries: -1 }), /maxRetries/],
    ['createQueueConsumer', () => createQueueConsumer({ handlers: {}, concurrency: 0 }), /concurrency/],
    [
      'createQueueConsumer',
      () => createQueueConsumer({ handlers: { onIncoming: 'x' as never } }),
      /handlers.onIncoming: expected a function/,
    ],
    ['createQueuesDispatcher', () => createQueuesDispatcher({ queue: {} as never }), /producer binding/],
    [
      'createDurableObjectDedupeStore',
      () => createDurableObjectDedupeStore({ namespace: null as never }),
      /namespace binding/,
    ],
    [
      'createDurableObjectDedupeStore',
      () =>
        createDurableObjectDedupeStore({
          namespace: { idFromName: () => ({}), get: () => ({}) } as never,
          leaseMs: 10,
        }),
      /leaseMs/,
    ],
    [
      'createQueuesDispatcher',
      () => createQueuesDispatcher({ queue: { send: async () => undefined }, queu: 1 } as never),
      /queu/,
    ],
  ])('%s throws a TypeError naming a wrong option', (_, make, message) => {
    expect(make).toThrow(TypeError);
    expect(make).toThrow(message);
  });
});
