// Dedupe identities that must not collide, skip empty parts, or grow with the sender.
import request from 'supertest';
import { createMemoryDedupeStore, DEFAULT_DEDUPE_KEYS } from '../../src/dedupe/index.js';
import { buildIncoming, buildSession, fixtures } from '../../src/testing/index.js';
import { createTestReceiver } from '../helpers/receiver.js';

describe('dedupe identities', () => {
  it('runs two different sessions whose parts would join to the same string with ":"', async () => {
    const { app, router, calls } = createTestReceiver();
    const timestamp = Date.now();
    const first = buildSession({
      messagingNumber: '+27215550100',
      statusType: 'connecting:Connected' as never,
      status: 'Connected',
      timestamp,
    });
    const second = buildSession({
      messagingNumber: '+27215550100:connecting',
      statusType: 'Connected' as never,
      status: 'Connected',
      timestamp,
    });
    const answers = [
      await request(app).post('/webhooks/session').send(first),
      await request(app).post('/webhooks/session').send(second),
    ];
    await router.idle();
    expect(
      answers.map((res) => [res.status, (res.body as { duplicate?: boolean }).duplicate ?? false]),
    ).toEqual([
      [200, false],
      [200, false],
    ]);
    expect(calls.map((call) => (call.payload as { messagingNumber: string }).messagingNumber)).toEqual([
      '+27215550100',
      '+27215550100:connecting',
    ]);
  });

  it('runs two different reactions with ":" in sentTime and text', async () => {
    const { app, router, calls } = createTestReceiver();
    const gstId = 'gst-reacted-to';
    const first = buildIncoming({ messageContentType: 'REACTION', gstId, sentTime: '10:00', text: 'a:b' });
    const second = buildIncoming({ messageContentType: 'REACTION', gstId, sentTime: '10:00:a', text: 'b' });
    await request(app).post('/webhooks/incoming').send(first).expect(200);
    const res = await request(app).post('/webhooks/incoming').send(second).expect(200);
    await router.idle();
    expect(res.body.duplicate).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it.each([
    ['empty text', fixtures.variants.reactionRemoved],
    ['null text', fixtures.variants.reactionRemovedNullText],
  ])('runs a removed reaction (%s) once when it is redelivered', async (_label, removed) => {
    const { app, router, calls } = createTestReceiver();
    await request(app).post('/webhooks/incoming').send(removed).expect(200);
    const redelivery = await request(app).post('/webhooks/incoming').send(removed).expect(200);
    await router.idle();
    expect(redelivery.body.duplicate).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('hands the store a key of fixed length without the sender’s text, however long the identity', async () => {
    const seen: string[] = [];
    const inner = createMemoryDedupeStore();
    const store = {
      claim: (key: string) => (seen.push(key), inner.claim(key)),
      release: (key: string) => inner.release(key),
    };
    const { app, router } = createTestReceiver({
      dedupe: { store, keys: { chatbot: (p) => `custom-${p.eventId}` } },
    });
    const longId = `+27215550100-${'x'.repeat(100_000)}`;
    await request(app)
      .post('/webhooks/chatbot')
      .send({ ...fixtures.chatbot.v1.INCOMING, eventId: longId })
      .expect(200);
    await request(app)
      .post('/webhooks/session')
      .send(buildSession({ messagingNumber: '+27215550100' }))
      .expect(200);
    await router.idle();
    expect(seen).toHaveLength(2);
    // Only the first 60 characters, so a failure does not print 100 kB.
    const shown = seen.map((key) => key.slice(0, 60));
    expect(shown).toEqual([
      expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    ]);
    expect(seen.join(' ')).not.toContain('27215550100');
  });

  it('treats an empty identity from a custom key function as a value', async () => {
    const { app, router, calls } = createTestReceiver({ dedupe: { keys: { chatbot: () => '' } } });
    await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v1.INCOMING).expect(200);
    await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v1.INCOMING).expect(200);
    await router.idle();
    expect(calls).toHaveLength(1);
  });

  it('does not deduplicate a payload lacking a required part', () => {
    expect(DEFAULT_DEDUPE_KEYS.status({ ...fixtures.status.SENT, gstId: null } as never)).toBeUndefined();
    expect(DEFAULT_DEDUPE_KEYS.session({ ...buildSession(), timestamp: undefined })).toBeUndefined();
  });
});
