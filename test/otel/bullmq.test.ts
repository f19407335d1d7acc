import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import request from 'supertest';
import { ATTR, traceWebhooks } from '../../src/otel/index.js';
import { createBullMQDispatcher, createWorker, type WebhookWorker } from '../../src/redis/index.js';
import { buildChatbotEvent } from '../../src/testing/index.js';
import { createTestReceiver } from '../helpers/receiver.js';
import { cleanUp, describeWithRedis, SHARED_REDIS_PORT, uniqueName, waitFor } from '../redis/helpers.js';
import { attributeStrings } from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();
const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
const TOKEN = 'otel-bullmq-token-7d1e';

/** A provider of its own, as a separate process would have. */
function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, spans: () => exporter.getFinishedSpans() };
}

describeRedis('messaging-webhooks/otel across a BullMQ worker', () => {
  const queueName = uniqueName('otel');
  let redis: Redis;
  let worker: WebhookWorker | undefined;
  let router: { close(timeoutMs?: number): Promise<boolean> } | undefined;

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
  });

  afterAll(async () => {
    await router?.close(2000);
    await worker?.close(2000);
    if (redis) {
      await cleanUp(redis, queueName, 'none');
      await redis.quit();
    }
  });

  it('the worker’s process span continues the receiver’s trace, through the job data in Redis', async () => {
    const propagator = new W3CTraceContextPropagator();
    const receiver = tracing();
    const dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 2 });
    const receiving = createTestReceiver({ token: TOKEN, dispatcher, dedupe: false });
    const { app } = receiving;
    router = receiving.router;
    traceWebhooks(receiving.router, { tracerProvider: receiver.provider, propagator });

    // Enqueued before any worker runs: the job waits in Redis with its trace context.
    const event = buildChatbotEvent({ version: 'v1', messageText: 'call me on +27835550172' });
    await request(app).post(`/webhooks/${TOKEN}/chatbot`).send(event).expect(200);
    const [receive] = receiver.spans();
    expect(receive?.name).toBe('webhook receive');
    expect(receive!.attributes[ATTR.dedupe]).toBe('off');

    const waiting = await Promise.all(
      [0, 1].map(async (partition) => {
        const queue = new Queue(`${queueName}-${partition}`, { connection });
        try {
          return await queue.getJobs(['waiting', 'prioritized']);
        } finally {
          await queue.close();
        }
      }),
    );
    const stored = waiting.flat().map((job) => (job.data as { trace?: Record<string, string> }).trace);
    expect(stored).toEqual([
      {
        traceparent: `00-${receive!.spanContext().traceId}-${receive!.spanContext().spanId}-01`,
      },
    ]);

    const workerTracing = tracing();
    const ran: string[] = [];
    worker = createWorker({
      connection,
      queueName,
      partitions: 2,
      handlers: { onChatbot: (payload) => void ran.push(payload.eventId) },
    });
    traceWebhooks(worker, { tracerProvider: workerTracing.provider, propagator });
    expect(await waitFor(async () => workerTracing.spans().length > 0, 10_000)).toBe(true);

    const [processed] = workerTracing.spans();
    expect(ran).toEqual([event.eventId]);
    expect(processed!.name).toBe('webhook process');
    expect(processed!.kind).toBe(SpanKind.CONSUMER);
    expect(processed!.spanContext().traceId).toBe(receive!.spanContext().traceId);
    expect(processed!.parentSpanContext?.spanId).toBe(receive!.spanContext().spanId);
    expect(processed!.links.map((link) => link.context.spanId)).toEqual([receive!.spanContext().spanId]);
    expect(processed!.attributes).toMatchObject({
      [ATTR.type]: 'chatbot',
      [ATTR.attempt]: 1,
      [ATTR.outcome]: 'success',
      [ATTR.messagingMessageId]: receive!.attributes[ATTR.messagingMessageId],
    });
    for (const value of [...receiver.spans(), ...workerTracing.spans()].flatMap(attributeStrings)) {
      expect(value).not.toContain(TOKEN);
      expect(value).not.toContain('27835550172');
      expect(value).not.toContain(event.eventId);
    }
  });
});
