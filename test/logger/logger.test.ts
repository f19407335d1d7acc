import { pino } from 'pino';
import request from 'supertest';
import express from 'express';
import { digestDedupeKey } from '../../src/dedupe/keys.js';
import { createWebhookRouter } from '../../src/index.js';
import { createLibraryLogger, logRef, maskPayload, REDACTED } from '../../src/logger.js';
import { buildStatus, fixtures } from '../../src/testing/index.js';

function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('maskPayload', () => {
  it('keeps the shape and masks every string and number at any depth', () => {
    let deep: unknown = { text: 'hello', n: 1, ok: true, none: null };
    for (let level = 0; level < 10; level += 1) deep = { level: [deep] };
    const masked = JSON.stringify(maskPayload(deep));
    expect(masked).not.toContain('hello');
    expect(masked).toContain('"ok":true');
    expect(masked).toContain('"none":null');
    expect(masked.match(new RegExp(REDACTED.replace(/[[\]]/g, '\\$&'), 'g'))).toHaveLength(2);
  });

  it('stops walking past 32 levels instead of recursing without bound', () => {
    let deep: unknown = 'secret';
    for (let level = 0; level < 10_000; level += 1) deep = [deep];
    expect(JSON.stringify(maskPayload(deep))).not.toContain('secret');
  });
});

describe('logRef', () => {
  it('gives equal references to equal values and none that contains the value', () => {
    expect(logRef('chatbot:+27825550143')).toBe(logRef('chatbot:+27825550143'));
    expect(logRef('chatbot:+27825550143')).not.toBe(logRef('chatbot:+27825550144'));
    expect(logRef('chatbot:+27825550143')).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('the library logger', () => {
  it('masks `payload` and `job` fields in the lines of its children (users\u2019 ctx.logger)', () => {
    const { logger, lines } = memoryLogger();
    const child = createLibraryLogger({ logger }, 'test').child({ requestId: 'r1' });
    child.info({ payload: fixtures.incoming.TEXT, token: 't0ken' }, 'logged by a user');
    child.info(
      { job: { type: 'incoming', payload: fixtures.incoming.TEXT, dedupeKey: 'incoming:x' } },
      'job',
    );
    const text = JSON.stringify(lines);
    expect(text).not.toContain(fixtures.incoming.TEXT.sender);
    expect(text).not.toContain('t0ken');
    expect(text).not.toContain('incoming:x');
  });

  it('logs values as they are with redactLogs: false (the documented opt-out)', async () => {
    const { logger, lines } = memoryLogger();
    const router = createWebhookRouter({
      logger,
      redactLogs: false,
      onStatus: (_payload, ctx) => ctx.logger.info('ran'),
    });
    const app = express().use('/webhooks', router);
    const receipt = buildStatus({ status: 'QUEUED' });
    await request(app).post('/webhooks/status').send(receipt).expect(200);
    await request(app).post('/webhooks/status').send(receipt).expect(200);
    await router.idle();
    const text = JSON.stringify(lines);
    expect(text).toContain('"value":"QUEUED"');
    // The dedupe key is a digest of the identity (issue 16), logged as it is when redaction is off.
    const key = digestDedupeKey('status', JSON.stringify([receipt.gstId, receipt.status]));
    expect(text).toContain(`"dedupeKey":"${key}"`);
  });

  it('binds requestId, type, attempt and an eventRef into ctx.logger by default, and no payload value', async () => {
    const { logger, lines } = memoryLogger();
    const router = createWebhookRouter({ logger, onStatus: (_payload, ctx) => ctx.logger.info('ran') });
    const app = express().use('/webhooks', router);
    const receipt = buildStatus();
    await request(app).post('/webhooks/status').set('x-request-id', 'req-1').send(receipt).expect(200);
    await router.idle();
    const line = lines.find((entry) => entry.msg === 'ran');
    expect(line).toMatchObject({ requestId: 'req-1', type: 'status', attempt: 1 });
    expect(line?.eventRef).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(line)).not.toContain(receipt.gstId);
  });
});
