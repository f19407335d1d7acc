import express from 'express';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createJsonlSink, deadLettersToJsonl, spillToJsonl } from '../../src/capture/index.js';
import type { DeadLetter } from '../../src/dispatch/types.js';
import { createNodeHandler, createWebhookRouter } from '../../src/receiver/index.js';
import { buildIncoming, readCapture, replay } from '../../src/testing/index.js';

const silent = pino({ level: 'silent' });
const retry = { attempts: 2, backoff: { type: 'fixed', delay: 1 } } as const;
const EVENTS = 6;
const events = Array.from({ length: EVENTS }, (_, i) =>
  buildIncoming({ gstId: `gst-dead-${i}`, text: `message ${i}`, sender: `2782555000${i % 3}` }),
);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-dead-letters-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A router whose onIncoming fails while `broken()` says so, mounted at /webhooks. */
function brokenApp(file: string, broken: () => boolean, ran: string[], deadLetters: DeadLetter[] = []) {
  const router = createWebhookRouter({
    logger: silent,
    retry,
    deadLetterSink: file,
    onDeadLetter: (deadLetter) => void deadLetters.push(deadLetter),
    onIncoming: (message) => {
      if (broken()) throw new Error('callback broken');
      ran.push(message.gstId ?? '');
    },
  });
  return { router, app: express().use('/webhooks', router) };
}

async function send(app: express.Express): Promise<void> {
  const report = await replay(
    events.map((payload) => ({ type: 'incoming' as const, payload })),
    app,
    { basePath: '/webhooks' },
  );
  expect(report.succeeded).toBe(EVENTS);
}

describe('deadLetterSink (in-memory dispatcher)', () => {
  it('writes each dead letter to a capture file that a fixed fresh router replays, each exactly once', async () => {
    const file = join(dir, 'dead', 'letters.jsonl');
    const ran: string[] = [];
    const deadLetters: DeadLetter[] = [];
    const broken = brokenApp(file, () => true, ran, deadLetters);
    await send(broken.app);
    await broken.router.idle();
    await broken.router.close();

    // onDeadLetter stays: it is called as before, beside the file.
    expect(deadLetters).toHaveLength(EVENTS);
    expect(ran).toEqual([]);
    const records = [];
    for await (const item of readCapture(file)) records.push(item);
    expect(records).toHaveLength(EVENTS);
    for (const [i, item] of records.entries()) {
      expect(item.error).toBeUndefined();
      expect(item.record).toMatchObject({ type: 'incoming', path: '/incoming' });
      expect(JSON.parse(item.record!.body)).toEqual(events[i]);
    }

    // After the fix (a restart: a fresh router, a fresh dedupe store).
    const fixedRan: string[] = [];
    const fixed = createNodeHandler({
      logger: silent,
      basePath: '/webhooks',
      onIncoming: (message) => void fixedRan.push(message.gstId ?? ''),
    });
    const report = await replay(file, fixed, { basePath: '/webhooks' });
    expect(report).toMatchObject({ sent: EVENTS, succeeded: EVENTS, failed: 0 });
    await fixed.idle();
    expect(fixedRan.sort()).toEqual(events.map((event) => event.gstId).sort());
    await fixed.close();
  });

  it('releases the dedupe claim of a written dead letter: replaying into the same router runs it once, a second replay is a duplicate', async () => {
    const file = join(dir, 'letters.jsonl');
    const ran: string[] = [];
    let broken = true;
    const { router, app } = brokenApp(file, () => broken, ran);
    await send(app);
    await router.idle();
    broken = false; // fixed in place (e.g. a feature flag or a dependency back up)

    const first = await replay(file, app, { basePath: '/webhooks' });
    expect(first.succeeded).toBe(EVENTS);
    expect(first.items.every((item) => !item.responseBody?.includes('duplicate'))).toBe(true);
    await router.idle();
    expect(ran.sort()).toEqual(events.map((event) => event.gstId).sort());

    const second = await replay(file, app, { basePath: '/webhooks' });
    expect(second.items.every((item) => item.responseBody?.includes('"duplicate":true'))).toBe(true);
    await router.idle();
    expect(ran).toHaveLength(EVENTS);
    await router.close();
  });

  it('creates no file while nothing is dead-lettered', async () => {
    const file = join(dir, 'never.jsonl');
    const { router, app } = brokenApp(file, () => false, []);
    await send(app);
    await router.idle();
    await router.close();
    expect(existsSync(file)).toBe(false);
  });

  it('shares one JsonlSink with the shutdown spill: the same capture lines in one file', async () => {
    const sink = createJsonlSink(join(dir, 'shared.jsonl'));
    const write = deadLettersToJsonl(sink);
    const spill = spillToJsonl(sink);
    const job = {
      type: 'incoming' as const,
      payload: events[0]!,
      requestId: 'req-1',
      receivedAt: Date.parse('2026-01-01T00:00:00Z'),
      orderingKey: 'incoming:x',
    };
    expect(write({ job, error: new Error('x'), attempts: 3 })).toBe(true);
    await spill([{ job, attempts: 0 }]);
    await write.close(); // flushes; the sink stays open for its owner
    await sink.close();
    const lines = readFileSync(sink.file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(lines[1]);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      receivedAt: '2026-01-01T00:00:00.000Z',
      type: 'incoming',
      path: '/incoming',
      headers: { 'x-request-id': 'req-1' },
    });
  });

  it.each([
    ['an empty path', ''],
    ['a number', 42],
    ['an object without writeRecord', { file: 'x' }],
  ])('throws a TypeError naming deadLetterSink for %s', (_, value) => {
    expect(() => createWebhookRouter({ deadLetterSink: value as never })).toThrow(TypeError);
    expect(() => createWebhookRouter({ deadLetterSink: value as never })).toThrow(
      /^deadLetterSink: expected/,
    );
  });
});
