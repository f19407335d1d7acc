import request from 'supertest';
import { PARTNER_EVENT_TYPES } from '../../src/schemas/index.js';
import { SEED, T0, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/* Section "Partner event payloads": all six event types with their fields, over /_emulator. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.reset();
  await h.createConfig({ eventWebhookURL: h.urls('a').eventWebhookURL });
});
afterAll(async () => {
  await h.close();
});

const EVENTS: readonly Record<string, unknown>[] = [
  {
    eventType: 'PHONE_QUALITY_CHANGED',
    qualityRating: 'YELLOW',
    messagingLimitTier: 'TIER_10K',
    channelStatus: 'FLAGGED',
  },
  {
    eventType: 'TEMPLATE_STATUS_CHANGED',
    templateName: 'welcome',
    templateStatus: 'REJECTED',
    rejectedReason: 'Spam',
  },
  {
    eventType: 'TEMPLATE_QUALITY_CHANGED',
    templateName: 'welcome',
    previousQualityScore: 'GREEN',
    newQualityScore: 'RED',
  },
  {
    eventType: 'TEMPLATE_COMPONENTS_CHANGED',
    templateName: 'welcome',
    templateLanguage: 'en',
    templateElement: 'BODY',
  },
  { eventType: 'USER_PREFERENCE', waId: '27831116666', category: 'MARKETING', preferenceValue: 'stop' },
  { eventType: 'USER_CHANGED_NUMBER', oldNumber: '27831116666', newNumber: '27831117777' },
];

describe('partner events', () => {
  it.each(EVENTS)('$eventType is delivered with the common fields and its own', async (fields) => {
    const response = await request(h.emulator.listener)
      .post('/_emulator/partner-events')
      .send({ messagingNumber: SEED.cloud.msisdn, ...fields });
    expect(response.status).toBe(200);
    await h.settle();
    expectAllDeliveriesValid(h.emulator);
    expect(h.calls.map((call) => call.payload)).toEqual([
      { ...fields, messagingNumber: SEED.cloud.msisdn, timestamp: T0 },
    ]);
  });

  it('covers all six documented event types', () => {
    expect(EVENTS.map((e) => e.eventType)).toEqual([...PARTNER_EVENT_TYPES]);
  });

  it.each([
    ['USER_PREFERENCE without waId', { eventType: 'USER_PREFERENCE', preferenceValue: 'stop' }, 'waId'],
    [
      'TEMPLATE_STATUS_CHANGED without templateName',
      { eventType: 'TEMPLATE_STATUS_CHANGED' },
      'templateName',
    ],
    ['no eventType', {}, 'eventType'],
  ])('%s is a 400 naming the field', async (_name, fields, field) => {
    const response = await request(h.emulator.listener)
      .post('/_emulator/partner-events')
      .send({ messagingNumber: SEED.cloud.msisdn, ...fields });
    expect(response.status).toBe(400);
    expect(response.body.field).toBe(field);
    await h.settle();
    expect(h.calls).toEqual([]);
  });
});
