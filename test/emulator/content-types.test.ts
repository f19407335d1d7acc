import { MESSAGE_CONTENT_TYPES, type MessageContentType } from '../../src/schemas/index.js';
import type { CustomerMessageInput } from '../../src/emulator/index.js';
import { SEED, T0, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/*
 * Section "Incoming message payload", content-type table: a customer message of every content
 * type emits to incomingMessageURL with its key fields, and to chatbotWebhookURL (INCOMING).
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.reset();
  await h.createConfig({
    incomingMessageURL: h.urls('a').incomingMessageURL,
    chatbotWebhookURL: h.urls('a').chatbotWebhookURL,
    chatbotPayloadVersion: 'v2',
  });
});
afterAll(async () => {
  await h.close();
});

const CUSTOMER = '+27831114444';

const CONTENT: readonly {
  contentType: MessageContentType;
  input: Partial<CustomerMessageInput>;
  keyFields: Record<string, unknown>;
}[] = [
  { contentType: 'TEXT', input: { text: 'Hello' }, keyFields: { text: 'Hello' } },
  {
    contentType: 'MEDIA',
    input: { mediaUrl: 'https://cdn.example.com/doc.pdf', caption: 'Invoice', fileExtension: 'pdf' },
    keyFields: { mediaUrl: 'https://cdn.example.com/doc.pdf', caption: 'Invoice', fileExtension: 'pdf' },
  },
  {
    contentType: 'LOCATION',
    input: { latitude: '1.5', longitude: '2.5', label: 'Office', address: '1 Main Rd' },
    keyFields: { latitude: '1.5', longitude: '2.5', label: 'Office', address: '1 Main Rd' },
  },
  {
    contentType: 'BUTTON',
    input: { buttonText: 'Yes', buttonPayload: 'YES' },
    keyFields: { buttonText: 'Yes', buttonPayload: 'YES' },
  },
  {
    contentType: 'INTERACTIVE',
    input: { buttonText: 'Option 2', buttonPayload: 'opt-2' },
    keyFields: { buttonText: 'Option 2', buttonPayload: 'opt-2' },
  },
  {
    contentType: 'CONTACT',
    input: { contact: { name: 'Jane Doe', phone: '+27835550000' } },
    keyFields: { text: 'Contact: Jane Doe, Phone: +27835550000' },
  },
  {
    contentType: 'REACTION',
    input: { text: '👍', reactedToGstId: 'gst-earlier' },
    keyFields: { text: '👍', gstId: 'gst-earlier' },
  },
  {
    contentType: 'CAROUSEL',
    input: { buttonText: 'Card 1', buttonPayload: 'card-1' },
    keyFields: { buttonText: 'Card 1', buttonPayload: 'card-1' },
  },
];

describe('every messageContentType', () => {
  it.each(CONTENT)(
    '$contentType emits an incoming message with its key fields and a chatbot INCOMING event',
    async ({ contentType, input, keyFields }) => {
      h.emulator.customerMessage({
        number: SEED.cloud.msisdn,
        from: CUSTOMER,
        contentType,
        profileName: 'Jane',
        ...input,
      });
      await h.settle();
      expectAllDeliveriesValid(h.emulator);
      expect(h.calls.map((call) => call.type)).toEqual(['incoming', 'chatbot']);
      const [incoming, chatbot] = h.calls.map((call) => call.payload);
      expect(incoming).toMatchObject({
        ...keyFields,
        messageContentType: contentType,
        sender: CUSTOMER,
        senderUserId: expect.any(String),
        receiver: SEED.cloud.msisdn,
        profileName: 'Jane',
        messageType: 'CONVERSATION',
        status: 'RECEIVED',
        sentTime: new Date(T0).toISOString(),
        errorCode: '',
        errorCodeString: '',
      });
      // null fields are omitted: nothing in the payload is null
      expect(Object.values(incoming ?? {}).filter((value) => value === null)).toEqual([]);
      expect(chatbot).toMatchObject({ direction: 'INCOMING', messageType: contentType });
    },
  );

  it('covers the documented content types', () => {
    expect(CONTENT.map((c) => c.contentType)).toEqual([...MESSAGE_CONTENT_TYPES]);
  });

  it('a REACTION with empty text (removed) keeps text "" and the reacted-to gstId', async () => {
    h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      contentType: 'REACTION',
      text: '',
      reactedToGstId: 'gst-1',
    });
    await h.settle();
    expect(h.calls[0]?.payload).toMatchObject({ text: '', gstId: 'gst-1' });
    expect(h.calls[1]?.payload).not.toHaveProperty('messageText');
  });

  it.each([
    ['REACTION without reactedToGstId', { contentType: 'REACTION' as const }, 'reactedToGstId'],
    ['CONTACT without contact or text', { contentType: 'CONTACT' as const }, 'contact'],
    ['an unknown content type', { contentType: 'HOLOGRAM' }, 'contentType'],
    ['an unknown number', { number: '+19999' }, 'number'],
  ])('%s is a 400/404 naming the field and emits nothing', async (_name, input, field) => {
    expect(() =>
      h.emulator.customerMessage({
        number: SEED.cloud.msisdn,
        from: CUSTOMER,
        ...input,
      } as CustomerMessageInput),
    ).toThrow(expect.objectContaining({ field }));
    await h.settle();
    expect(h.calls).toEqual([]);
  });

  it('the incoming participantId is not the chat participant id; the chatbot payload carries chatParticipantId', async () => {
    const result = h.emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text: 'x' });
    await h.settle();
    expect(h.calls[0]?.payload.participantId).not.toBe(result.chatParticipantId);
    expect(h.calls[1]?.payload.chatParticipantId).toBe(result.chatParticipantId);
  });
});
