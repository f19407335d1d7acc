/**
 * The run-time side of the narrowing types: a payload typed as a documented branch always is
 * one, and a discriminator value the documentation does not list still passes, unchanged.
 */
import {
  chatbotEventV1Schema,
  chatbotEventV2Schema,
  incomingMessageSchema,
  parseWebhook,
  partnerEventSchema,
  statusUpdateSchema,
  type WebhookType,
} from '../../src/schemas/index.js';
import { fixtures } from '../../src/testing/index.js';

/** Drop one field from a fixture. */
function without(payload: object, field: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...payload };
  delete copy[field];
  return copy;
}

describe('documented discriminator values never fall back to the unlisted branch', () => {
  // Before: the plain z.union accepted these through its fallback branch, whose discriminant
  // was any string, so a value typed "LOCATION with latitude: string" could lack latitude.
  const rows = [
    {
      schema: 'incomingMessageSchema',
      parse: incomingMessageSchema,
      payload: without(fixtures.incoming.LOCATION, 'latitude'),
    },
    {
      schema: 'incomingMessageSchema',
      parse: incomingMessageSchema,
      payload: without(fixtures.incoming.TEXT, 'text'),
    },
    {
      schema: 'partnerEventSchema',
      parse: partnerEventSchema,
      payload: without(fixtures.event.USER_PREFERENCE, 'waId'),
    },
    {
      schema: 'statusUpdateSchema',
      parse: statusUpdateSchema,
      payload: without(fixtures.status.FAILED, 'errorCode'),
    },
    {
      schema: 'chatbotEventV2Schema',
      parse: chatbotEventV2Schema,
      payload: without(fixtures.chatbot.v2.INCOMING, 'senderUserId'),
    },
  ] as const;

  it.each(rows)('$schema rejects a documented branch without its key field', ({ parse, payload }) => {
    expect(parse.safeParse(payload).success).toBe(false);
  });
});

describe('parseWebhook by the discriminator', () => {
  it.each([
    ['incoming', without(fixtures.incoming.LOCATION, 'longitude'), 'longitude'],
    ['event', without(fixtures.event.USER_CHANGED_NUMBER, 'newNumber'), 'newNumber'],
    ['status', without(fixtures.status.FAILED, 'errorCodeString'), 'errorCodeString'],
    ['chatbot', without(fixtures.chatbot.v2.OUTGOING, 'recipientUserId'), 'recipientUserId'],
  ] as const)('%s: names the missing key field of the branch the value selects', (type, payload, field) => {
    const parsed = parseWebhook(type, payload);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.issues.map((issue) => issue.path)).toEqual([field]);
  });

  it('keeps the v2 BSUID message', () => {
    const parsed = parseWebhook('chatbot', without(fixtures.chatbot.v2.INCOMING, 'senderUserId'), {
      chatbotPayloadVersion: 'v2',
    });
    expect(parsed).toMatchObject({
      success: false,
      issues: [
        { path: 'senderUserId', message: 'Required on INCOMING v2 chatbot events (the customer BSUID)' },
      ],
    });
  });

  const unlisted: readonly (readonly [WebhookType, Record<string, unknown>, string])[] = [
    [
      'incoming',
      { ...fixtures.incoming.TEXT, messageContentType: 'STICKER', extra: 1 },
      'messageContentType',
    ],
    ['event', { ...fixtures.event.USER_PREFERENCE, eventType: 'ACCOUNT_REVIEWED', extra: 1 }, 'eventType'],
    ['status', { ...fixtures.status.SENT, status: 'QUEUED', extra: 1 }, 'status'],
    ['chatbot', { ...fixtures.chatbot.v1.INCOMING, direction: 'INTERNAL', extra: 1 }, 'direction'],
    ['chatbot', { ...fixtures.chatbot.v2.INCOMING, direction: 'INTERNAL', extra: 1 }, 'direction'],
  ];

  it.each(unlisted)(
    '%s: passes an unlisted value through unchanged, extra fields kept',
    (type, payload, field) => {
      const parsed = parseWebhook(type, payload);
      expect(parsed).toMatchObject({ success: true, data: payload });
      if (parsed.success) expect(parsed.unlisted).toContainEqual({ field, value: payload[field] });
    },
  );

  it('rejects an empty discriminator as before', () => {
    expect(parseWebhook('incoming', { ...fixtures.incoming.TEXT, messageContentType: '' }).success).toBe(
      false,
    );
  });

  it('accepts v1 chatbot events of both documented directions', () => {
    for (const event of Object.values(fixtures.chatbot.v1)) {
      expect(chatbotEventV1Schema.safeParse(event).success).toBe(true);
    }
  });
});
