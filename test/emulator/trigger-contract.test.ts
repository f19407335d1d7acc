/*
 * Triggers stay inside the documented contract: every enum, closed value set and format of the
 * documentation's payload tables is checked on trigger input, in JS (a BadRequestError naming
 * the field and the documented values) and over /_emulator (400). A partner event carries only
 * the fields of its eventType; rejectedReason only when REJECTED. `undocumented: true` lets a
 * test send an unlisted value on purpose, and the delivery log marks it. The enum values come
 * from src/schemas, the tables the receiver validates with.
 */
import request from 'supertest';
import { BadRequestError, createEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  CHANNEL_STATUSES,
  CHATBOT_MESSAGE_TYPES,
  INCOMING_MESSAGE_TYPES,
  MESSAGING_LIMIT_TIERS,
  PARTNER_EVENT_TYPES,
  PREFERENCE_VALUES,
  QUALITY_RATINGS,
  TEMPLATE_ELEMENTS,
  TEMPLATE_QUALITY_SCORES,
  TEMPLATE_STATUSES,
} from '../../src/schemas/index.js';
import { SEED, T0 } from './harness.js';

const CLOUD = SEED.cloud.msisdn;
const CUSTOMER = '+27831234567';

let emulator: Emulator;
beforeEach(() => {
  emulator = createEmulator({ clock: T0, retry: { attempts: 1 } });
});

type TriggerName = 'partnerEvent' | 'customerMessage' | 'sendMessage' | 'botReply';
const ROUTES: Record<TriggerName, string> = {
  partnerEvent: '/_emulator/partner-events',
  customerMessage: '/_emulator/customer-message',
  sendMessage: '/_emulator/messages',
  botReply: '/_emulator/bot-reply',
};

function call(trigger: TriggerName, input: Record<string, unknown>): unknown {
  return (emulator[trigger] as (value: unknown) => unknown)(input);
}

/** The error a JS call throws, or undefined. */
function thrown(trigger: TriggerName, input: Record<string, unknown>): unknown {
  try {
    call(trigger, input);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** One row per documented enum of the partner event table: field, documented values, an input. */
const PARTNER_ENUM_ROWS = [
  { eventType: 'PHONE_QUALITY_CHANGED', field: 'qualityRating', values: QUALITY_RATINGS, base: {} },
  {
    eventType: 'PHONE_QUALITY_CHANGED',
    field: 'messagingLimitTier',
    values: MESSAGING_LIMIT_TIERS,
    base: {},
  },
  { eventType: 'PHONE_QUALITY_CHANGED', field: 'channelStatus', values: CHANNEL_STATUSES, base: {} },
  {
    eventType: 'TEMPLATE_STATUS_CHANGED',
    field: 'templateStatus',
    values: TEMPLATE_STATUSES,
    base: { templateName: 'welcome' },
  },
  {
    eventType: 'TEMPLATE_QUALITY_CHANGED',
    field: 'previousQualityScore',
    values: TEMPLATE_QUALITY_SCORES,
    base: { templateName: 'welcome' },
  },
  {
    eventType: 'TEMPLATE_QUALITY_CHANGED',
    field: 'newQualityScore',
    values: TEMPLATE_QUALITY_SCORES,
    base: { templateName: 'welcome' },
  },
  {
    eventType: 'TEMPLATE_COMPONENTS_CHANGED',
    field: 'templateElement',
    values: TEMPLATE_ELEMENTS,
    base: { templateName: 'welcome', templateLanguage: 'en' },
  },
  {
    eventType: 'USER_PREFERENCE',
    field: 'preferenceValue',
    values: PREFERENCE_VALUES,
    base: { waId: '27831116666', category: 'MARKETING' },
  },
] as const;

describe('partner event enums (table: Partner event payloads)', () => {
  it.each(PARTNER_ENUM_ROWS)('$eventType $field accepts each documented value', (row) => {
    for (const value of row.values) {
      const input = { messagingNumber: CLOUD, eventType: row.eventType, ...row.base, [row.field]: value };
      if (row.field === 'templateStatus' && value === 'REJECTED')
        Object.assign(input, { rejectedReason: 'x' });
      expect(thrown('partnerEvent', input)).toBeUndefined();
    }
  });

  it.each(PARTNER_ENUM_ROWS)(
    '$eventType $field refuses an unlisted value, naming the field and the documented values (JS and HTTP)',
    async (row) => {
      const input = { messagingNumber: CLOUD, eventType: row.eventType, ...row.base, [row.field]: 'BLUE' };
      const error = thrown('partnerEvent', input);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ field: row.field });
      for (const value of row.values) expect((error as Error).message).toContain(value);
      const res = await request(emulator.listener).post(ROUTES.partnerEvent).send(input);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: row.field });
    },
  );

  it('refuses an unlisted eventType, listing the documented ones', () => {
    const error = thrown('partnerEvent', { messagingNumber: CLOUD, eventType: 'ACCOUNT_BANNED' });
    expect(error).toMatchObject({ field: 'eventType' });
    for (const type of PARTNER_EVENT_TYPES) expect((error as Error).message).toContain(type);
  });

  it('refuses a waId with a leading + (documented: phone number without +)', () => {
    expect(
      thrown('partnerEvent', {
        messagingNumber: CLOUD,
        eventType: 'USER_PREFERENCE',
        waId: '+27831116666',
        preferenceValue: 'stop',
      }),
    ).toMatchObject({ field: 'waId' });
  });

  it('accepts rejectedReason only when templateStatus is REJECTED', () => {
    const base = { messagingNumber: CLOUD, eventType: 'TEMPLATE_STATUS_CHANGED', templateName: 'welcome' };
    expect(
      thrown('partnerEvent', { ...base, templateStatus: 'APPROVED', rejectedReason: 'Spam' }),
    ).toMatchObject({
      field: 'rejectedReason',
    });
    expect(
      thrown('partnerEvent', { ...base, templateStatus: 'REJECTED', rejectedReason: 'Spam' }),
    ).toBeUndefined();
  });

  it.each([
    [
      'USER_CHANGED_NUMBER',
      { oldNumber: '27831116666', newNumber: '27831117777' },
      'templateName',
      'welcome',
    ],
    ['USER_CHANGED_NUMBER', { oldNumber: '27831116666', newNumber: '27831117777' }, 'qualityRating', 'RED'],
    ['PHONE_QUALITY_CHANGED', { qualityRating: 'RED' }, 'templateStatus', 'APPROVED'],
    ['USER_PREFERENCE', { waId: '27831116666', preferenceValue: 'stop' }, 'oldNumber', '27831116666'],
  ] as const)('a %s event carries only its own fields (refuses %s)', (eventType, fields, extra, value) => {
    const input = { messagingNumber: CLOUD, eventType, ...fields, [extra]: value };
    const error = thrown('partnerEvent', input);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ field: extra });
  });
});

describe('customer message, send message and chatbot trigger formats', () => {
  const ROWS: readonly {
    readonly name: string;
    readonly trigger: TriggerName;
    readonly input: Record<string, unknown>;
    readonly field: string;
    readonly mentions: readonly string[];
  }[] = [
    {
      name: 'incoming messageType outside INTERACTION/CONVERSATION',
      trigger: 'customerMessage',
      input: { number: CLOUD, from: CUSTOMER, text: 'hi', messageType: 'PROMOTIONAL' },
      field: 'messageType',
      mentions: INCOMING_MESSAGE_TYPES,
    },
    {
      name: 'customer sender not E.164',
      trigger: 'customerMessage',
      input: { number: CLOUD, from: 'not-a-phone', text: 'hi' },
      field: 'from',
      mentions: ['E.164'],
    },
    {
      name: 'send recipient not E.164',
      trigger: 'sendMessage',
      input: { number: CLOUD, to: '0831234567' },
      field: 'to',
      mentions: ['E.164'],
    },
    {
      name: 'chatbot templateId not a UUID',
      trigger: 'sendMessage',
      input: { number: CLOUD, to: CUSTOMER, template: { id: 'tpl-7', name: 'welcome' } },
      field: 'template.id',
      mentions: ['UUID'],
    },
  ];

  it.each(ROWS)('refuses $name (JS and HTTP)', async ({ trigger, input, field, mentions }) => {
    const error = thrown(trigger, input);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ field });
    for (const mention of mentions) expect((error as Error).message).toContain(mention);
    const res = await request(emulator.listener).post(ROUTES[trigger]).send(input);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field });
  });

  it.each(INCOMING_MESSAGE_TYPES)('accepts the documented incoming messageType %s', (messageType) => {
    expect(
      thrown('customerMessage', { number: CLOUD, from: CUSTOMER, text: 'hi', messageType }),
    ).toBeUndefined();
  });

  it('refuses a bot reply messageType outside the chatbot table, listing the documented ones', () => {
    const { chatParticipantId } = emulator.customerMessage({ number: CLOUD, from: CUSTOMER, text: 'hi' });
    const error = thrown('botReply', { chatParticipantId, messageType: 'CARD' });
    expect(error).toMatchObject({ field: 'messageType' });
    for (const type of CHATBOT_MESSAGE_TYPES) expect((error as Error).message).toContain(type);
    for (const messageType of CHATBOT_MESSAGE_TYPES) {
      expect(thrown('botReply', { chatParticipantId, messageType, messageText: 'x' })).toBeUndefined();
    }
  });
});

describe('drift simulation: undocumented: true', () => {
  it('delivers an unlisted value on request, and the delivery log marks it', async () => {
    const received: unknown[] = [];
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    try {
      const hook = `http://127.0.0.1:${address.port}/events`;
      await request(emulator.listener)
        .post('/Messaging/MessagingClientWebHook')
        .set('authorization', SEED.supervisorKey)
        .send({ eventWebhookURL: hook, incomingMessageURL: hook })
        .expect(200);
      emulator.partnerEvent({
        messagingNumber: CLOUD,
        eventType: 'PHONE_QUALITY_CHANGED',
        qualityRating: 'RED',
      });
      const drift = await request(emulator.listener)
        .post(ROUTES.partnerEvent)
        .send({ messagingNumber: CLOUD, eventType: 'ACCOUNT_BANNED', reason: 'x', undocumented: true });
      expect(drift.status).toBe(200);
      emulator.customerMessage({
        number: CLOUD,
        from: 'not-a-phone',
        text: 'hi',
        messageType: 'PROMOTIONAL',
        undocumented: true,
      });
      await emulator.idle();
      expect(emulator.deliveries().map((d) => [d.type, d.state, d.undocumented])).toEqual([
        ['event', 'delivered', false],
        ['event', 'delivered', true],
        ['incoming', 'delivered', true],
      ]);
      expect(received[1]).toEqual({
        eventType: 'ACCOUNT_BANNED',
        reason: 'x',
        messagingNumber: CLOUD,
        timestamp: T0,
      });
      // the opt-in is not part of the payload
      expect(received.some((payload) => Object.hasOwn(payload as object, 'undocumented'))).toBe(false);
    } finally {
      await emulator.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('resource fields typed as plain string are never null', () => {
  const USER_FIELDS = ['loginToken', 'avatar', 'applicationKey', 'applicationClientId'] as const;
  const CLIENT_STRING_FIELDS = [
    'accountType',
    'countryCode',
    'countryTimezone',
    'pricingModel',
    'smsMode',
    'smsUserId',
    'smsPassword',
    'smsClientRef',
  ] as const;

  async function supervisorRecord(key: string = SEED.supervisorKey): Promise<Record<string, unknown>> {
    const res = await request(emulator.listener)
      .get('/Messaging/SystemUsers/getCurrentLoginSystemUser')
      .set('authorization', key);
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>;
  }

  it.each(USER_FIELDS)('SystemUser.%s is a string (seed without it)', async (field) => {
    expect(typeof (await supervisorRecord())[field]).toBe('string');
  });

  it('SystemUser.loginToken stays a string for a disabled user', async () => {
    const user = emulator.state.users.get(SEED.users.bob);
    if (user === undefined) throw new Error('seed changed');
    user.disabled = true;
    const res = await request(emulator.listener)
      .get('/Messaging/SystemUsers/getCurrentClientUsers')
      .set('authorization', SEED.supervisorKey);
    const bob = (res.body as Record<string, unknown>[]).find((row) => row.id === SEED.users.bob);
    expect(bob).toMatchObject({ loginToken: '', validToken: false });
  });

  it.each(CLIENT_STRING_FIELDS)('Client.%s is a string (seed without it)', async (field) => {
    const client = (await supervisorRecord()).client as Record<string, unknown>;
    expect(typeof client[field]).toBe('string');
  });
});
