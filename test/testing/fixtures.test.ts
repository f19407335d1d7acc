import {
  CHATBOT_DIRECTIONS,
  CHATBOT_PAYLOAD_VERSIONS,
  DELIVERY_STATUSES,
  detectWebhookType,
  MESSAGE_CONTENT_TYPES,
  parseWebhook,
  PARTNER_EVENT_TYPES,
  reactionOf,
  SESSION_STATUS_STRINGS,
  SESSION_STATUS_TYPE_OF,
  WEBHOOK_TYPES,
} from '../../src/schemas/index.js';
import type { IncomingMessage, WebhookType } from '../../src/schemas/index.js';
import {
  allFixtures,
  buildChatbotEvent,
  buildIncoming,
  buildPartnerEvent,
  buildSession,
  buildStatus,
  FIXTURE_PARTIES,
  fixtures,
} from '../../src/testing/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const E164 = /^\+[1-9]\d{7,14}$/;

/** A copy of `payload` without `key`: how a field the platform failed to send looks. */
function without(payload: object, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...payload };
  delete copy[key];
  return copy;
}

function parsedOk(type: WebhookType, payload: unknown) {
  const result = parseWebhook(type, payload);
  if (!result.success) throw new Error(`${type} payload failed: ${JSON.stringify(result.issues)}`);
  return result;
}

const issuePaths = (type: WebhookType, payload: unknown, version?: 'v1' | 'v2'): string[] => {
  const result = parseWebhook(type, payload, { chatbotPayloadVersion: version });
  return result.success ? [] : result.issues.map((issue) => issue.path);
};

const CHATBOT_CASES = CHATBOT_PAYLOAD_VERSIONS.flatMap((version) =>
  CHATBOT_DIRECTIONS.map((direction) => ({ version, direction })),
);

describe('fixture corpus', () => {
  const all = allFixtures();

  it('has a fixture for every row of every documented table', () => {
    expect(Object.keys(fixtures.incoming).sort()).toEqual([...MESSAGE_CONTENT_TYPES].sort());
    expect(Object.keys(fixtures.status).sort()).toEqual([...DELIVERY_STATUSES].sort());
    expect(Object.keys(fixtures.session).sort()).toEqual([...SESSION_STATUS_STRINGS].sort());
    expect(Object.keys(fixtures.event).sort()).toEqual([...PARTNER_EVENT_TYPES].sort());
    for (const version of CHATBOT_PAYLOAD_VERSIONS) {
      expect(Object.keys(fixtures.chatbot[version]).sort()).toEqual([...CHATBOT_DIRECTIONS].sort());
    }
    expect(new Set(all.map((f) => f.type))).toEqual(new Set(WEBHOOK_TYPES));
    expect(new Set(all.map((f) => f.name)).size).toBe(all.length);
  });

  it.each(all)('$name passes parseWebhook as $type with no unlisted enum values', ({ type, payload }) => {
    expect(parsedOk(type, payload).unlisted).toEqual([]);
  });

  it.each(all)('detectWebhookType classifies $name as $type', ({ type, payload }) => {
    expect(detectWebhookType(payload)).toBe(type);
  });

  it.each(CHATBOT_CASES)(
    'chatbot.$version.$direction is detected as payload version $version',
    ({ version, direction }) => {
      expect(parsedOk('chatbot', fixtures.chatbot[version][direction]).payloadVersion).toBe(version);
    },
  );

  it('gives v2 chatbot events the customer BSUID on the side the direction requires', () => {
    expect(fixtures.chatbot.v2.INCOMING.senderUserId).toBe(FIXTURE_PARTIES.customerUserId);
    expect(fixtures.chatbot.v2.INCOMING.recipientUserId).toBeUndefined();
    expect(fixtures.chatbot.v2.OUTGOING.recipientUserId).toBe(FIXTURE_PARTIES.customerUserId);
    expect(fixtures.chatbot.v2.OUTGOING.senderUserId).toBeUndefined();
    expect(fixtures.chatbot.v2.INCOMING.teamId).toMatch(UUID);
    expect(fixtures.chatbot.v2.INCOMING.teamName).toBe(FIXTURE_PARTIES.teamName);
  });

  it.each(CHATBOT_PAYLOAD_VERSIONS)(
    'carries a JSON list of widgets as messageText on the %s OUTGOING Combined event',
    (version) => {
      const event = fixtures.chatbot[version].OUTGOING;
      expect(event.messageType).toBe('Combined');
      const widgets: unknown = JSON.parse(event.messageText ?? '');
      expect(Array.isArray(widgets) && widgets.length > 1).toBe(true);
      expect(event.senderMsisdn).toBe(FIXTURE_PARTIES.businessNumber);
      expect(event.receiverMsisdn).toBe(FIXTURE_PARTIES.customerNumber);
    },
  );

  it('uses E.164 numbers, UUID ids and the formatted CONTACT text', () => {
    for (const message of Object.values(fixtures.incoming)) {
      expect(message.sender).toMatch(E164);
      expect(message.gstId).toMatch(UUID);
    }
    expect(fixtures.incoming.CONTACT.text).toMatch(/^Contact: [^,]+, Phone: \+\d+$/);
    for (const version of CHATBOT_PAYLOAD_VERSIONS) {
      for (const event of Object.values(fixtures.chatbot[version])) {
        expect(event.eventId).toMatch(UUID);
        expect(event.chatParticipantId).toMatch(UUID);
      }
    }
  });

  it('reports FAILED with a numeric errorCode and an errorCodeString, and no error on the others', () => {
    expect(fixtures.status.FAILED.errorCode).toMatch(/^\d+$/);
    expect(fixtures.status.FAILED.errorCodeString).toEqual(expect.any(String));
    for (const status of DELIVERY_STATUSES.filter((s) => s !== 'FAILED')) {
      expect(fixtures.status[status].errorCode).toBeUndefined();
    }
  });

  it.each(SESSION_STATUS_STRINGS)('session "%s" carries the statusType the table gives it', (status) => {
    expect(fixtures.session[status]).toMatchObject({ status, statusType: SESSION_STATUS_TYPE_OF[status] });
  });

  it('reads the REACTION fixtures as an emoji and as removed reactions', () => {
    expect(reactionOf(fixtures.incoming.REACTION)).toEqual({
      emoji: '👍',
      removed: false,
      reactedToGstId: fixtures.incoming.REACTION.gstId,
    });
    expect(reactionOf(fixtures.variants.reactionRemoved)?.removed).toBe(true);
    expect(reactionOf(fixtures.variants.reactionRemovedNullText)?.removed).toBe(true);
  });

  it('is frozen, and allFixtures() hands out mutable copies', () => {
    expect(Object.isFrozen(fixtures.incoming.TEXT)).toBe(true);
    expect(Object.isFrozen(fixtures.incoming.BUTTON.bodyParameters)).toBe(true);
    const first = allFixtures()[0];
    expect(first?.name).toBe('incoming.TEXT');
    if (first === undefined) return;
    (first.payload as Record<string, unknown>)['text'] = 'changed';
    expect(fixtures.incoming.TEXT.text).not.toBe('changed');
    expect(allFixtures()[0]?.payload).toEqual(fixtures.incoming.TEXT);
  });
});

describe('builders', () => {
  it.each(MESSAGE_CONTENT_TYPES)('buildIncoming builds a %s message that passes the schema', (type) => {
    const message = buildIncoming({ messageContentType: type });
    expect(message.messageContentType).toBe(type);
    expect(parsedOk('incoming', message).unlisted).toEqual([]);
    expect(detectWebhookType(message)).toBe('incoming');
  });

  it('fills and types the key fields of the content type asked for', () => {
    const media = buildIncoming({ messageContentType: 'MEDIA' });
    const mediaUrl: string = media.mediaUrl;
    expect(mediaUrl).toMatch(/^https:\/\//);
    expect(media.fileExtension).toEqual(expect.any(String));
    const location = buildIncoming({ messageContentType: 'LOCATION' });
    const coordinates: [string, string] = [location.latitude, location.longitude];
    expect(coordinates.map(Number).every(Number.isFinite)).toBe(true);
    const text = buildIncoming();
    const body: string = text.text;
    expect(text.messageContentType).toBe('TEXT');
    expect(body.length).toBeGreaterThan(0);
  });

  it.each(DELIVERY_STATUSES)('buildStatus builds a %s receipt that passes the schema', (status) => {
    const receipt = buildStatus({ status });
    expect(receipt.status).toBe(status);
    expect(parsedOk('status', receipt).unlisted).toEqual([]);
    expect(detectWebhookType(receipt)).toBe('status');
  });

  it('sets the timestamps and error fields each delivery status implies', () => {
    expect(buildStatus({ status: 'SENT' }).deliveryTime).toBeUndefined();
    expect(buildStatus({ status: 'DELIVERED' }).deliveryTime).toEqual(expect.any(String));
    expect(buildStatus({ status: 'READ' }).readTime).toEqual(expect.any(String));
    expect(buildStatus({ status: 'PLAYED' }).playedTime).toEqual(expect.any(String));
    expect(buildStatus({ status: 'FAILED' })).toMatchObject({
      errorCode: expect.stringMatching(/^\d+$/) as unknown,
      errorCodeString: expect.any(String) as unknown,
    });
    expect(buildStatus({ status: 'FAILED' }).deliveryTime).toBeUndefined();
  });

  it.each(SESSION_STATUS_STRINGS)('buildSession builds "%s" with its statusType', (status) => {
    const session = buildSession({ status });
    expect(session.statusType).toBe(SESSION_STATUS_TYPE_OF[status]);
    expect(parsedOk('session', session).unlisted).toEqual([]);
    expect(detectWebhookType(session)).toBe('session');
  });

  it('picks a status string of the statusType when only the statusType is given', () => {
    const session = buildSession({ statusType: 'success' });
    expect(session.status).toBe('Sync Complete. You can now send messages');
    expect(buildSession({ statusType: 'disconnected' }).status).toBe('Paired Failed');
    expect(buildSession()).toMatchObject({ status: 'Connected', statusType: 'connecting' });
  });

  it.each(PARTNER_EVENT_TYPES)('buildPartnerEvent builds a %s event that passes the schema', (eventType) => {
    const event = buildPartnerEvent({ eventType });
    expect(event.eventType).toBe(eventType);
    expect(parsedOk('event', event).unlisted).toEqual([]);
    expect(detectWebhookType(event)).toBe('event');
  });

  it('fills and types the fields of the partner event type asked for', () => {
    const changed = buildPartnerEvent({ eventType: 'USER_CHANGED_NUMBER', newNumber: '+27835550100' });
    const numbers: [string, string] = [changed.oldNumber, changed.newNumber];
    expect(numbers).toEqual([FIXTURE_PARTIES.customerNumber, '+27835550100']);
    expect(buildPartnerEvent()).toMatchObject({ eventType: 'USER_PREFERENCE', preferenceValue: 'stop' });
  });

  it.each(CHATBOT_CASES)(
    'buildChatbotEvent builds a $version $direction event that passes the $version schema',
    ({ version, direction }) => {
      const event =
        version === 'v1'
          ? buildChatbotEvent({ version, direction })
          : buildChatbotEvent({ version, direction });
      expect(event.direction).toBe(direction);
      expect(parsedOk('chatbot', event)).toMatchObject({ payloadVersion: version, unlisted: [] });
      const explicit = parseWebhook('chatbot', event, { chatbotPayloadVersion: version });
      expect(explicit.success).toBe(true);
      expect(detectWebhookType(event)).toBe('chatbot');
    },
  );

  it('puts the msisdns and the v2 BSUID on the sides the direction requires', () => {
    const incoming = buildChatbotEvent();
    expect(incoming).toMatchObject({
      direction: 'INCOMING',
      senderMsisdn: FIXTURE_PARTIES.customerNumber,
      receiverMsisdn: FIXTURE_PARTIES.businessNumber,
      senderUserId: FIXTURE_PARTIES.customerUserId,
    });
    const outgoing = buildChatbotEvent({ direction: 'OUTGOING' });
    expect(outgoing).toMatchObject({
      senderMsisdn: FIXTURE_PARTIES.businessNumber,
      receiverMsisdn: FIXTURE_PARTIES.customerNumber,
      recipientUserId: FIXTURE_PARTIES.customerUserId,
      messageType: 'Combined',
    });
    expect(outgoing.senderUserId).toBeUndefined();
    expect(buildChatbotEvent({ version: 'v1' })).not.toHaveProperty('teamId');
    expect(buildChatbotEvent({ version: 'v1' })).not.toHaveProperty('version');
  });

  it('gives every built payload fresh ids', () => {
    const events = [buildChatbotEvent(), buildChatbotEvent(), buildChatbotEvent({ version: 'v1' })];
    expect(new Set(events.map((e) => e.eventId)).size).toBe(3);
    for (const event of events) expect(event.eventId).toMatch(UUID);
    const gstIds = [buildIncoming(), buildIncoming(), buildStatus(), buildStatus()].map((p) => p.gstId);
    expect(new Set(gstIds).size).toBe(4);
  });

  it('is deterministic apart from ids and timestamps', () => {
    const strip = (payload: object): Record<string, unknown> => {
      const copy: Record<string, unknown> = { ...payload };
      for (const key of ['eventId', 'messageId', 'gstId', 'requestId', 'timestamp', 'sentTime', 'sendTime']) {
        delete copy[key];
      }
      return copy;
    };
    expect(strip(buildIncoming({ messageContentType: 'BUTTON' }))).toEqual(
      strip(buildIncoming({ messageContentType: 'BUTTON' })),
    );
    expect(strip(buildChatbotEvent({ direction: 'OUTGOING' }))).toEqual(
      strip(buildChatbotEvent({ direction: 'OUTGOING' })),
    );
    expect(strip(buildPartnerEvent({ eventType: 'PHONE_QUALITY_CHANGED' }))).toEqual(
      strip(buildPartnerEvent({ eventType: 'PHONE_QUALITY_CHANGED' })),
    );
  });

  it('merges overrides over the defaults and removes a field overridden with undefined', () => {
    const gstId = 'f0e1d2c3-b4a5-4697-8877-665544332211';
    expect(buildStatus({ gstId, status: 'SENT' }).gstId).toBe(gstId);
    const message = buildIncoming({ text: 'Hello', username: undefined, customField: 42 });
    expect(message).toMatchObject({ text: 'Hello', customField: 42, sender: FIXTURE_PARTIES.customerNumber });
    expect(message).not.toHaveProperty('username');
    const approved = buildPartnerEvent({
      eventType: 'TEMPLATE_STATUS_CHANGED',
      templateStatus: 'APPROVED',
      rejectedReason: undefined,
    });
    expect(approved).not.toHaveProperty('rejectedReason');
    expect(parsedOk('event', approved).unlisted).toEqual([]);
  });

  it('does not share nested objects between built payloads and the fixtures', () => {
    const button = buildIncoming({ messageContentType: 'BUTTON' });
    expect(Object.isFrozen(button.bodyParameters)).toBe(false);
    expect(button.bodyParameters).toEqual(fixtures.incoming.BUTTON.bodyParameters);
  });
});

describe('schemas, exercised with the fixtures', () => {
  it.each(allFixtures())('keeps unknown extra fields on $name', ({ type, payload }) => {
    const extra = { futureField: 'kept', futureObject: { nested: [1, 2] } };
    expect(parsedOk(type, { ...payload, ...extra }).data).toMatchObject(extra);
  });

  const UNLISTED: readonly { type: WebhookType; field: string; value: string; base: object }[] = [
    { type: 'status', field: 'status', value: 'QUEUED', base: fixtures.status.SENT },
    { type: 'incoming', field: 'messageContentType', value: 'VIDEO_NOTE', base: fixtures.incoming.TEXT },
    { type: 'incoming', field: 'messageType', value: 'MARKETING_LITE', base: fixtures.incoming.TEXT },
    { type: 'event', field: 'eventType', value: 'NEW_THING', base: fixtures.event.USER_PREFERENCE },
    { type: 'event', field: 'qualityRating', value: 'ORANGE', base: fixtures.event.PHONE_QUALITY_CHANGED },
    { type: 'event', field: 'preferenceValue', value: 'pause', base: fixtures.event.USER_PREFERENCE },
    { type: 'session', field: 'status', value: 'Reconnecting...', base: fixtures.session.Connected },
    { type: 'session', field: 'statusType', value: 'paused', base: fixtures.session.Connected },
    { type: 'chatbot', field: 'direction', value: 'SIDEWAYS', base: fixtures.chatbot.v1.INCOMING },
    { type: 'chatbot', field: 'direction', value: 'SIDEWAYS', base: fixtures.chatbot.v2.INCOMING },
    { type: 'chatbot', field: 'messageType', value: 'STICKER', base: fixtures.chatbot.v2.INCOMING },
  ];
  it.each(UNLISTED)(
    'accepts $type $field "$value" and reports it in unlisted',
    ({ type, field, value, base }) => {
      const result = parsedOk(type, { ...base, [field]: value });
      expect(result.unlisted).toEqual([{ field, value }]);
    },
  );

  const REQUIRED: readonly { type: WebhookType; path: string; base: object }[] = [
    { type: 'chatbot', path: 'eventId', base: fixtures.chatbot.v1.INCOMING },
    { type: 'chatbot', path: 'direction', base: fixtures.chatbot.v1.INCOMING },
    { type: 'chatbot', path: 'chatParticipantId', base: fixtures.chatbot.v1.INCOMING },
    { type: 'chatbot', path: 'eventId', base: fixtures.chatbot.v2.OUTGOING },
    { type: 'chatbot', path: 'direction', base: fixtures.chatbot.v2.OUTGOING },
    { type: 'chatbot', path: 'chatParticipantId', base: fixtures.chatbot.v2.OUTGOING },
    { type: 'incoming', path: 'sender', base: fixtures.incoming.TEXT },
    { type: 'incoming', path: 'messageContentType', base: fixtures.incoming.TEXT },
    { type: 'status', path: 'gstId', base: fixtures.status.DELIVERED },
    { type: 'status', path: 'status', base: fixtures.status.DELIVERED },
    { type: 'session', path: 'messagingNumber', base: fixtures.session.Disconnected },
    { type: 'session', path: 'statusType', base: fixtures.session.Disconnected },
    { type: 'event', path: 'eventType', base: fixtures.event.PHONE_QUALITY_CHANGED },
  ];
  it.each(REQUIRED)('rejects a $type payload without $path, naming that path', ({ type, path, base }) => {
    expect(issuePaths(type, without(base, path))).toContain(path);
  });
  it.each(REQUIRED)('rejects a $type payload whose $path is an empty string', ({ type, path, base }) => {
    if (path === 'direction' || path === 'status' || path === 'statusType') return; // open enums, not identifiers
    expect(issuePaths(type, { ...base, [path]: '' })).toContain(path);
  });

  const KEY_FIELDS: readonly { type: string; path: string; base: IncomingMessage }[] = [
    { type: 'TEXT', path: 'text', base: fixtures.incoming.TEXT },
    { type: 'MEDIA', path: 'mediaUrl', base: fixtures.incoming.MEDIA },
    { type: 'LOCATION', path: 'latitude', base: fixtures.incoming.LOCATION },
    { type: 'LOCATION', path: 'longitude', base: fixtures.incoming.LOCATION },
    { type: 'CONTACT', path: 'text', base: fixtures.incoming.CONTACT },
    { type: 'REACTION', path: 'gstId', base: fixtures.incoming.REACTION },
  ];
  it.each(KEY_FIELDS)('rejects a $type message without its key field $path', ({ path, base }) => {
    expect(issuePaths('incoming', without(base, path))).toEqual([path]);
  });

  const PARTNER_FIELDS = [
    { eventType: 'TEMPLATE_STATUS_CHANGED', path: 'templateName' },
    { eventType: 'USER_PREFERENCE', path: 'waId' },
    { eventType: 'USER_PREFERENCE', path: 'preferenceValue' },
    { eventType: 'USER_CHANGED_NUMBER', path: 'newNumber' },
  ] as const;
  it.each(PARTNER_FIELDS)('rejects a $eventType event without $path', ({ eventType, path }) => {
    expect(issuePaths('event', without(fixtures.event[eventType], path))).toEqual([path]);
  });

  it('rejects a v2 INCOMING chatbot event without senderUserId when parsed as v2', () => {
    const event = without(fixtures.chatbot.v2.INCOMING, 'senderUserId');
    expect(issuePaths('chatbot', event, 'v2')).toEqual(['senderUserId']);
    // Still v2 by detection (teamId is a v2-only field), so it fails without the option too.
    expect(issuePaths('chatbot', event)).toEqual(['senderUserId']);
    // The same event read as v1 is valid: v1 has no BSUID.
    expect(issuePaths('chatbot', event, 'v1')).toEqual([]);
  });

  it('rejects a v2 OUTGOING chatbot event without recipientUserId when parsed as v2', () => {
    const event = without(fixtures.chatbot.v2.OUTGOING, 'recipientUserId');
    expect(issuePaths('chatbot', event, 'v2')).toEqual(['recipientUserId']);
    expect(issuePaths('chatbot', buildChatbotEvent({ version: 'v1' }), 'v2')).toEqual(['senderUserId']);
  });

  it.each([
    { text: '', removed: true },
    { text: null, removed: true },
    { text: undefined, removed: true },
    { text: '❤️', removed: false },
  ])('reactionOf says removed=$removed for text $text', ({ text, removed }) => {
    const reaction = buildIncoming({ messageContentType: 'REACTION', text });
    expect(reactionOf(reaction)).toEqual({
      emoji: removed ? null : text,
      removed,
      reactedToGstId: reaction.gstId,
    });
  });

  it('reactionOf is undefined for messages that are not reactions', () => {
    expect(reactionOf(fixtures.incoming.TEXT)).toBeUndefined();
  });

  it.each([
    {
      name: 'incoming + partner marks',
      payload: { ...fixtures.incoming.TEXT, eventType: 'USER_PREFERENCE' },
    },
    { name: 'incoming + session marks', payload: { ...fixtures.incoming.TEXT, statusType: 'success' } },
    { name: 'session + partner marks', payload: { ...fixtures.session.Connected, eventType: 'NEW_THING' } },
    {
      name: 'chatbot + incoming marks',
      payload: { ...fixtures.chatbot.v2.INCOMING, messageContentType: 'TEXT' },
    },
  ])('detectWebhookType returns undefined for an ambiguous shape ($name)', ({ payload }) => {
    expect(detectWebhookType(payload)).toBeUndefined();
  });

  it.each([null, undefined, 'incoming', 42, true, [fixtures.incoming.TEXT], {}])(
    'detectWebhookType returns undefined for %p',
    (payload) => {
      expect(detectWebhookType(payload)).toBeUndefined();
    },
  );
});
