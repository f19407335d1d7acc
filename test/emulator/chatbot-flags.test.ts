import { CHATBOT_V2_FIELDS, parseWebhook } from '../../src/schemas/index.js';
import { SEED, expectAllDeliveriesValid, startHarness, type Harness } from './harness.js';

/*
 * Section "Chatbot conversation payload": the flags table (chatbotWebhookURL,
 * chatbotIncludeOutgoing, chatbotStopOnAgentAssignment), the coexistence with
 * incomingMessageURL, and the v1/v2 payload contents.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.reset();
});
afterAll(async () => {
  await h.close();
});

const CUSTOMER = '+27831113333';

interface FlagCase {
  readonly name: string;
  readonly config: Record<string, unknown>;
  readonly assigned: boolean;
  readonly direction: 'INCOMING' | 'OUTGOING';
  /** Callback types the receiver must see, in order. */
  readonly expected: readonly string[];
}

const url = () => h.urls('a').chatbotWebhookURL;
const incoming = () => h.urls('a').incomingMessageURL;

const FLAGS: readonly FlagCase[] = [
  {
    name: 'chatbotWebhookURL unset',
    config: {},
    assigned: false,
    direction: 'INCOMING',
    expected: ['incoming'],
  },
  {
    name: 'chatbotWebhookURL blank',
    config: { chatbotWebhookURL: '' },
    assigned: false,
    direction: 'INCOMING',
    expected: ['incoming'],
  },
  {
    name: 'URL set, defaults: INCOMING emitted beside incomingMessageURL',
    config: { chatbotWebhookURL: 'URL' },
    assigned: false,
    direction: 'INCOMING',
    expected: ['incoming', 'chatbot:INCOMING'],
  },
  {
    name: 'chatbotIncludeOutgoing false (default): no OUTGOING',
    config: { chatbotWebhookURL: 'URL' },
    assigned: false,
    direction: 'OUTGOING',
    expected: [],
  },
  {
    name: 'chatbotIncludeOutgoing true: OUTGOING emitted',
    config: { chatbotWebhookURL: 'URL', chatbotIncludeOutgoing: true },
    assigned: false,
    direction: 'OUTGOING',
    expected: ['chatbot:OUTGOING'],
  },
  {
    name: 'chatbotStopOnAgentAssignment false (default): keeps emitting after handover',
    config: { chatbotWebhookURL: 'URL' },
    assigned: true,
    direction: 'INCOMING',
    expected: ['incoming', 'chatbot:INCOMING'],
  },
  {
    name: 'chatbotStopOnAgentAssignment true, agent assigned: no INCOMING',
    config: { chatbotWebhookURL: 'URL', chatbotStopOnAgentAssignment: true },
    assigned: true,
    direction: 'INCOMING',
    expected: ['incoming'],
  },
  {
    name: 'chatbotStopOnAgentAssignment true, agent assigned: no OUTGOING either',
    config: { chatbotWebhookURL: 'URL', chatbotStopOnAgentAssignment: true, chatbotIncludeOutgoing: true },
    assigned: true,
    direction: 'OUTGOING',
    expected: [],
  },
  {
    name: 'chatbotStopOnAgentAssignment true, no agent: emitted',
    config: { chatbotWebhookURL: 'URL', chatbotStopOnAgentAssignment: true },
    assigned: false,
    direction: 'INCOMING',
    expected: ['incoming', 'chatbot:INCOMING'],
  },
];

describe('chatbot flags table', () => {
  it.each(FLAGS)('$name', async ({ config, assigned, direction, expected }) => {
    const resolved = Object.fromEntries(
      Object.entries(config).map(([key, value]) => [key, value === 'URL' ? url() : value]),
    );
    await h.createConfig({ incomingMessageURL: incoming(), ...resolved });
    // open the chat first (its events are not part of the case)
    const { chatParticipantId } = h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      text: 'hi',
    });
    if (assigned) h.emulator.assignAgent({ chatParticipantId, userId: SEED.users.ada });
    await h.settle();
    h.calls.length = 0;

    if (direction === 'INCOMING') {
      h.emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text: 'again' });
    } else {
      h.emulator.botReply({ chatParticipantId, messageText: 'How can I help?' });
    }
    await h.settle();
    expectAllDeliveriesValid(h.emulator);
    expect(
      h.calls.map((call) =>
        call.type === 'chatbot' ? `chatbot:${String(call.payload.direction)}` : call.type,
      ),
    ).toEqual(expected);
    for (const call of h.calls.filter((c) => c.type === 'chatbot')) {
      if (assigned)
        expect(call.payload).toMatchObject({
          assignedAgentId: SEED.users.ada,
          assignedAgentName: 'Ada Agent',
        });
      else expect(call.payload).not.toHaveProperty('assignedAgentId');
    }
  });

  it('handing the chat back to the bot resumes emission, with lastAssignedAgent set', async () => {
    await h.createConfig({ chatbotWebhookURL: url(), chatbotStopOnAgentAssignment: true });
    const { chatParticipantId } = h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      text: '1',
    });
    h.emulator.assignAgent({ chatParticipantId, userId: SEED.users.ada });
    h.emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text: '2' });
    h.emulator.unassignAgent({ chatParticipantId });
    h.emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text: '3' });
    await h.settle();
    expect(h.calls.map((call) => call.payload.messageText)).toEqual(['1', '3']);
    expect(h.calls[1]?.payload).toMatchObject({
      lastAssignedAgentId: SEED.users.ada,
      lastAssignedAgentName: 'Ada Agent',
      chatBotConversation: true,
    });
    expect(h.calls[1]?.payload).not.toHaveProperty('assignedAgentId');
  });
});

describe('chatbot payload versions and fields', () => {
  const v2Only = (payload: Record<string, unknown>) =>
    CHATBOT_V2_FIELDS.filter((field) => payload[field] !== undefined);

  it.each([
    ['omitted', {}],
    ['null', { chatbotPayloadVersion: null }],
    ['v1', { chatbotPayloadVersion: 'v1' }],
  ])('chatbotPayloadVersion %s sends v1: no v2 field at all', async (_name, version) => {
    await h.createConfig({ chatbotWebhookURL: url(), chatbotIncludeOutgoing: true, ...version });
    const { chatParticipantId } = h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      text: 'hi',
      username: 'cust',
    });
    h.emulator.assignAgent({ chatParticipantId, userId: SEED.users.ada, teamId: SEED.teams.sales });
    h.emulator.botReply({ chatParticipantId, messageText: 'ok' });
    await h.settle();
    expect(h.calls).toHaveLength(2);
    for (const call of h.calls) {
      expect(v2Only(call.payload)).toEqual([]);
      expect(parseWebhook('chatbot', call.payload, { chatbotPayloadVersion: 'v1' }).success).toBe(true);
    }
  });

  it('v2 adds the BSUID (senderUserId INCOMING, recipientUserId OUTGOING), username, team and quoted message', async () => {
    await h.createConfig({
      chatbotWebhookURL: url(),
      chatbotIncludeOutgoing: true,
      chatbotPayloadVersion: 'v2',
    });
    const first = h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      text: 'hi',
      username: 'cust',
      quotedMessageId: 'm-1',
      quotedText: 'earlier',
    });
    h.emulator.assignAgent({ chatParticipantId: first.chatParticipantId, teamId: SEED.teams.support });
    h.emulator.botReply({ chatParticipantId: first.chatParticipantId, messageText: 'ok' });
    await h.settle();
    expectAllDeliveriesValid(h.emulator);
    const [inbound, outbound] = h.calls.map((call) => call.payload);
    const bsuid = h.emulator.chatParticipant(first.chatParticipantId)?.userId;
    expect(inbound).toMatchObject({
      direction: 'INCOMING',
      senderUserId: bsuid,
      username: 'cust',
      quotedMessageId: 'm-1',
      quotedText: 'earlier',
      senderMsisdn: CUSTOMER,
      receiverMsisdn: SEED.cloud.msisdn,
    });
    expect(inbound).not.toHaveProperty('recipientUserId');
    expect(inbound).not.toHaveProperty('teamId');
    expect(outbound).toMatchObject({
      direction: 'OUTGOING',
      recipientUserId: bsuid,
      teamId: SEED.teams.support,
      teamName: 'Support',
      // Bob is the Support team's only agent
      assignedAgentId: SEED.users.bob,
      senderMsisdn: SEED.cloud.msisdn,
      receiverMsisdn: CUSTOMER,
    });
    expect(outbound).not.toHaveProperty('senderUserId');
    expect(outbound).not.toHaveProperty('quotedMessageId');
  });

  it('username is omitted when unset; the BSUID is always present on incoming and v2 chatbot events', async () => {
    await h.createConfig({
      incomingMessageURL: incoming(),
      chatbotWebhookURL: url(),
      chatbotPayloadVersion: 'v2',
    });
    h.emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text: 'hi' });
    await h.settle();
    for (const call of h.calls) {
      expect(call.payload).not.toHaveProperty('username');
      expect(call.payload.senderUserId).toEqual(expect.any(String));
    }
  });

  it('templateId/templateName are on INCOMING only after a template send, and gone after a free-form reply', async () => {
    await h.createConfig({
      incomingMessageURL: incoming(),
      chatbotWebhookURL: url(),
      chatbotIncludeOutgoing: true,
    });
    const sent = h.emulator.sendMessage({
      number: SEED.cloud.msisdn,
      to: CUSTOMER,
      template: { id: '11111111-1111-4111-8111-111111111111', name: 'welcome' },
    });
    h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      contentType: 'BUTTON',
      buttonText: 'Yes',
    });
    h.emulator.botReply({ chatParticipantId: sent.chatParticipantId, messageText: 'free-form' });
    h.emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text: 'after' });
    await h.settle();
    const templated = (p: Record<string, unknown>) =>
      p.templateName === 'welcome' && p.templateId !== undefined;
    expect(
      h.calls.map(
        (call) =>
          `${call.type}:${typeof call.payload.direction === 'string' ? call.payload.direction : ''}:${templated(call.payload)}`,
      ),
    ).toEqual([
      'incoming::true',
      'chatbot:INCOMING:true',
      'chatbot:OUTGOING:false',
      'incoming::false',
      'chatbot:INCOMING:false',
    ]);
  });

  it('every event gets a fresh eventId; a Combined reply carries the JSON widget list', async () => {
    await h.createConfig({ chatbotWebhookURL: url(), chatbotIncludeOutgoing: true });
    const { chatParticipantId } = h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      text: 'a',
    });
    h.emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text: 'a' });
    const widgets = [
      { type: 'text', text: 'Hi' },
      { type: 'button', options: ['Yes', 'No'] },
    ];
    h.emulator.botReply({ chatParticipantId, widgets });
    await h.settle();
    const ids = h.calls.map((call) => call.payload.eventId);
    expect(new Set(ids).size).toBe(3);
    expect(h.calls[2]?.payload).toMatchObject({
      messageType: 'Combined',
      messageText: JSON.stringify(widgets),
    });
    // no nested objects in a chatbot payload
    for (const call of h.calls) {
      for (const value of Object.values(call.payload))
        expect(typeof value === 'object' && value !== null).toBe(false);
    }
  });

  it('an assignment event (notify) carries routedToAnotherTeam in v2', async () => {
    await h.createConfig({
      chatbotWebhookURL: url(),
      chatbotIncludeOutgoing: true,
      chatbotPayloadVersion: 'v2',
    });
    const { chatParticipantId } = h.emulator.customerMessage({
      number: SEED.cloud.msisdn,
      from: CUSTOMER,
      text: 'a',
    });
    await h.settle();
    h.calls.length = 0;
    h.emulator.assignAgent({ chatParticipantId, teamId: SEED.teams.sales, notify: true });
    h.emulator.assignAgent({
      chatParticipantId,
      userId: SEED.users.supervisor,
      teamId: SEED.teams.sales,
      notify: true,
    });
    await h.settle();
    expect(
      h.calls.map((call) => [
        call.payload.messageType,
        call.payload.routedToAnotherTeam,
        call.payload.messageText,
      ]),
    ).toEqual([
      ['USER_ACTION', true, 'Assigned to Ada Agent'],
      ['USER_ACTION', false, 'Assigned to Sam Supervisor'],
    ]);
    expect(h.calls[1]?.payload).toMatchObject({ lastAssignedAgentId: SEED.users.ada });
  });
});
