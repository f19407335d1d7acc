import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import express from 'express';
import {
  createJsonlSink,
  createMemoryDedupeStore,
  createWebhookRouter,
  spillToJsonl,
} from '../../src/index.js';
import type { ChatbotEvent } from '../../src/schemas/index.js';
import { createWebhookPipeline, type WebhookPipelineOptions } from '../../src/pipeline/index.js';
import { buildChatbotEvent, readCapture, replay } from '../../src/testing/index.js';

/**
 * Gap 8 of issue 16: when `close(timeoutMs)` times out, the acknowledged events not yet run are
 * handed to `onUnfinished` before `close` resolves, so nothing answered 200 is lost at exit.
 */
const EVENTS = 2000;
const FAIL_FIRST = 10; // fail their first attempt at once: waiting for a retry at close time
const CONCURRENCY = 16;
/** The spill-and-replay test sends each spilled event again over HTTP: fewer keep it quick. */
const SPILL_EVENTS = 300;

/** Posts through the framework-free pipeline, as an adapter would. */
function post(pipeline: ReturnType<typeof createWebhookPipeline>, payload: unknown) {
  const head = pipeline.head({
    method: 'POST',
    url: '/chatbot',
    header: (name) => (name === 'content-type' ? 'application/json' : undefined),
  });
  if (!('requestId' in head)) throw head;
  return pipeline.accept(head, { raw: JSON.stringify(payload) });
}

interface UnfinishedLike {
  readonly job: { readonly payload: unknown };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('close(timeoutMs) with acknowledged events left', () => {
  it('hands every acknowledged event that did not run to onUnfinished before close resolves, each exactly once', async () => {
    jest.useFakeTimers();
    const spillFile = path.join(mkdtempSync(path.join(tmpdir(), 'mw-spill-')), 'unfinished.jsonl');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const attempts = new Map<string, number>();
    const succeeded: string[] = [];
    const deadLettered: string[] = [];
    const unfinished: string[] = [];
    let unfinishedCalls = 0;
    const options = {
      concurrency: CONCURRENCY,
      retry: { attempts: 3, backoff: { type: 'fixed', delay: 1000 } },
      onChatbot: async (event: ChatbotEvent) => {
        const attempt = (attempts.get(event.eventId) ?? 0) + 1;
        attempts.set(event.eventId, attempt);
        const index = Number(event.eventId.split('-')[1]);
        if (index < FAIL_FIRST && attempt === 1) throw new Error('first attempt fails');
        await gate;
        // One running callback fails after close gave up: it must not be retried (nor spilled).
        if (index === FAIL_FIRST) throw new Error('fails after close');
        succeeded.push(event.eventId);
      },
      onDeadLetter: ({ job }: { job: { payload: unknown } }) => {
        deadLettered.push((job.payload as ChatbotEvent).eventId);
      },
      onUnfinished: async (jobs: readonly UnfinishedLike[]) => {
        unfinishedCalls += 1;
        for (const { job } of jobs) unfinished.push((job.payload as ChatbotEvent).eventId);
        await spillToJsonl(spillFile)(jobs as Parameters<ReturnType<typeof spillToJsonl>>[0]);
      },
    };
    const pipeline = createWebhookPipeline(options as unknown as WebhookPipelineOptions);

    const acked: string[] = [];
    for (let i = 0; i < EVENTS; i += 1) {
      const event = buildChatbotEvent({ eventId: `event-${i}`, chatParticipantId: `participant-${i}` });
      const answer = await post(pipeline, event);
      if (answer.status === 200) acked.push(event.eventId);
    }
    expect(acked).toHaveLength(EVENTS);
    // Let the workers start: 16 callbacks running, 10 waiting for their retry, the rest queued.
    await jest.advanceTimersByTimeAsync(0);
    expect(pipeline.stats().chatbot.running).toBe(CONCURRENCY);

    const closing = pipeline.close(100);
    await jest.advanceTimersByTimeAsync(100);
    const drained = await closing;
    expect(drained).toBe(false);
    // Handed over before close resolved, in one call.
    expect(unfinishedCalls).toBe(1);
    expect(unfinished).toHaveLength(EVENTS - CONCURRENCY);
    // ...and on disk, one capture line each, before close resolved.
    expect(readFileSync(spillFile, 'utf8').trim().split('\n')).toHaveLength(EVENTS - CONCURRENCY);

    // The callbacks still running finish after close; none of the handed-over events runs here.
    release();
    await jest.advanceTimersByTimeAsync(60_000);
    await pipeline.idle();
    expect(succeeded).toHaveLength(CONCURRENCY - 1);
    expect(deadLettered).toEqual([`event-${FAIL_FIRST}`]);

    // Every acknowledged event is run (succeeded or dead-lettered) or handed over, exactly once.
    const outcomes = [...succeeded, ...deadLettered, ...unfinished];
    expect(outcomes).toHaveLength(EVENTS);
    expect(new Set(outcomes)).toEqual(new Set(acked));
    for (const eventId of unfinished) expect(succeeded).not.toContain(eventId);
    // The events waiting for a retry were handed over rather than retried.
    for (let i = 0; i < FAIL_FIRST; i += 1) {
      expect(unfinished).toContain(`event-${i}`);
      expect(attempts.get(`event-${i}`)).toBe(1);
    }
    process.stdout.write(
      `shutdown test: close(100) with ${EVENTS} acked: ${succeeded.length + deadLettered.length} ran, ${unfinished.length} spilled, ${EVENTS - new Set(outcomes).size} lost, ${outcomes.length - new Set(outcomes).size} twice\n`,
    );
  });
});

describe('close(timeoutMs) without onUnfinished', () => {
  it('leaves the queue running as before: every acknowledged event still runs while the process lives', async () => {
    jest.useFakeTimers();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ran = new Set<string>();
    const pipeline = createWebhookPipeline({
      onChatbot: async (event) => {
        await gate;
        ran.add(event.eventId);
      },
    });
    for (let i = 0; i < 100; i += 1) {
      const event = buildChatbotEvent({ eventId: `keep-${i}`, chatParticipantId: `participant-${i}` });
      expect((await post(pipeline, event)).status).toBe(200);
    }
    await jest.advanceTimersByTimeAsync(0);
    const closing = pipeline.close(100);
    await jest.advanceTimersByTimeAsync(100);
    expect(await closing).toBe(false);
    release();
    await pipeline.idle();
    expect(ran.size).toBe(100);
  });
});

describe('spillToJsonl', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mw-spill-'));

  it('writes the unfinished events of close(100) as a capture file that replay() runs in a fresh router', async () => {
    jest.useFakeTimers();
    const file = path.join(dir, 'unfinished.jsonl');
    const ran: string[] = [];
    // One dedupe store for both routers (as a shared store would be): the spilled events' claims
    // are released, so their replay is not answered "duplicate".
    const store = createMemoryDedupeStore();
    const router = createWebhookRouter({
      dedupe: { store },
      onChatbot: (event) => {
        ran.push(event.eventId);
        return new Promise(() => undefined); // never settles: the process is "stuck"
      },
      onUnfinished: spillToJsonl(file),
    });
    const acked: string[] = [];
    for (let i = 0; i < SPILL_EVENTS; i += 1) {
      const event = buildChatbotEvent({ eventId: `spill-${i}`, chatParticipantId: `participant-${i}` });
      if ((await post(router.pipeline, event)).status === 200) acked.push(event.eventId);
    }
    await jest.advanceTimersByTimeAsync(0);
    const closing = router.close(100);
    await jest.advanceTimersByTimeAsync(100);
    expect(await closing).toBe(false);
    jest.useRealTimers();

    // On disk before close resolved: one capture line per event that did not start.
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(SPILL_EVENTS - ran.length);
    const spilled: string[] = [];
    for await (const { record, error } of readCapture(file)) {
      expect(error).toBeUndefined();
      expect(record).toMatchObject({ type: 'chatbot', path: '/chatbot' });
      spilled.push((JSON.parse(record!.body) as ChatbotEvent).eventId);
    }
    expect([...ran, ...spilled].sort()).toEqual([...acked].sort());

    // After the "restart": the spill replays into a fresh router, which runs each event once.
    const rerun: string[] = [];
    const fresh = createWebhookRouter({
      dedupe: { store },
      onChatbot: (event) => void rerun.push(event.eventId),
    });
    const app = express().use('/webhooks', fresh);
    const report = await replay(file, app, { basePath: '/webhooks' });
    await fresh.idle();
    expect(report).toMatchObject({ sent: spilled.length, succeeded: spilled.length, failed: 0 });
    expect(rerun.sort()).toEqual([...spilled].sort());
    expect(fresh.stats().chatbot.duplicates).toBe(0);
  });

  it('flushes a shared JsonlSink and leaves it open for later lines', async () => {
    const file = path.join(dir, 'shared.jsonl');
    const sink = createJsonlSink(file);
    const spill = spillToJsonl(sink);
    const job = {
      type: 'chatbot' as const,
      payload: buildChatbotEvent({ eventId: 'shared-1' }),
      requestId: 'req-1',
      receivedAt: Date.UTC(2025, 4, 14),
      orderingKey: 'chatbot:x',
    };
    await spill([{ job, attempts: 0 }]);
    expect(readFileSync(file, 'utf8')).toContain('"x-request-id":"req-1"');
    expect(sink.write('{"later":true}')).toBe(true);
    await sink.close();
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('rejects an empty path with a TypeError naming the option', () => {
    expect(() => spillToJsonl('')).toThrow(TypeError);
    expect(() => createWebhookRouter({ onUnfinished: 'file.jsonl' as never })).toThrow(/onUnfinished/);
  });
});
