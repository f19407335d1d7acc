/*
 * Live chat (sections Terminate or reopen a chat; Chat participant closure): the ChatParticipant
 * resource, merge rules 1–5 of terminateChatParticipantChat (one test per rule), the closure
 * transition table, the v2 operations and the error conditions.
 */
import {
  CHAT_PARTICIPANT_FIELDS,
  CLIENT_FIELDS,
  CREDENTIAL_FIELDS,
  chatParticipantSchema,
  chatParticipantViewSchema,
  userResponseSchema,
  MASKED_PASSWORD,
  SYSTEM_USER_FIELDS,
} from '../../../src/schemas/index.js';
import { ratingWidgetTriggers } from '../../../src/emulator/routes/live-chat.js';
import { CHAT, IDS, KEYS, setup } from './fixtures.js';

const TERMINATE = `${CHAT}/ChatParticipant/terminateChatParticipantChat`;
const v2 = (id: string, op: 'terminate' | 'reopen'): string => `${CHAT}/v2/ChatParticipant/${id}/${op}`;

let ctx: ReturnType<typeof setup>;
beforeEach(() => {
  ctx = setup();
});

async function get(id: string, key: string = KEYS.supervisor): Promise<Record<string, unknown>> {
  const res = await ctx.api().get(`${CHAT}/ChatParticipant`).query({ id }).set('authorization', key);
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}

async function put(body: Record<string, unknown>, key: string = KEYS.supervisor) {
  return ctx.api().put(TERMINATE).set('authorization', key).send(body);
}

describe('GET {chat_prefix}/ChatParticipant?id=', () => {
  it('renders every documented field, assignedTo as a credential-free user record (point 7)', async () => {
    const body = await get(IDS.openChat);
    expect(Object.keys(body).sort()).toEqual([...CHAT_PARTICIPANT_FIELDS].sort());
    expect(chatParticipantViewSchema.safeParse(body).success).toBe(true);
    const agent = body.assignedTo as Record<string, unknown>;
    expect(Object.keys(agent).sort()).toEqual(Object.keys(userResponseSchema.shape).sort());
    expect(agent).toMatchObject({ id: IDS.ada, email: 'agent@demo.test', clientRef: 'demo' });
    for (const field of CREDENTIAL_FIELDS) expect(agent).not.toHaveProperty(field);
  });

  it('the deprecated terminate keeps the full shape: assignedTo a SystemUser, masked password, full Client', async () => {
    const res = await put({ id: IDS.openChat, assignedTo: { id: IDS.ada } });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown>;
    expect(chatParticipantSchema.safeParse(body).success).toBe(true);
    const agent = body.assignedTo as Record<string, unknown>;
    expect(Object.keys(agent).sort()).toEqual([...SYSTEM_USER_FIELDS].sort());
    expect(agent).toMatchObject({ id: IDS.ada, email: 'agent@demo.test', password: MASKED_PASSWORD });
    expect(Object.keys(agent.client as object).sort()).toEqual([...CLIENT_FIELDS].sort());
  });

  it('renders the participant fields', async () => {
    const body = await get(IDS.openChat);
    expect(body).toMatchObject({
      id: IDS.openChat,
      fullName: 'Carla Customer',
      phoneNumber: '+27831110001',
      sender: '+27831110001',
      messagingClientNumber: '+27820000002',
      clientRef: 'demo',
      conversationClosed: false,
      lastAssignedAgent: null,
      createdTime: new Date(ctx.emulator.clock.now()).toISOString(),
    });
  });

  it('keeps the emulator-internal fields out of the resource', async () => {
    const body = await get(IDS.openChat);
    for (const internal of [
      'clientId',
      'numberId',
      'conversationId',
      'engineParticipantId',
      'lastOutboundTemplate',
    ]) {
      expect(body).not.toHaveProperty(internal);
    }
  });
});

describe('terminateChatParticipantChat merge rules', () => {
  it('rule 1: non-null strings and objects merge; null and omitted ones are preserved', async () => {
    const res = await put({
      id: IDS.openChat,
      assignedTo: { id: IDS.ada },
      subject: 'Refund',
      companyName: null,
      lastAssignedAgent: { id: IDS.bob },
      // email omitted
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subject: 'Refund',
      companyName: 'Carla Co',
      email: 'carla@example.test',
      assignedTo: { id: IDS.ada },
      lastAssignedAgent: { id: IDS.bob },
    });
    expect(await get(IDS.openChat)).toMatchObject({ subject: 'Refund', companyName: 'Carla Co' });
  });

  it.each([
    ['omitted', {}],
    ['null', { assignedTo: null }],
  ])(
    'rule 2: assignedTo %s clears the assignment (and does not move it to lastAssignedAgent)',
    async (_, extra) => {
      const res = await put({ id: IDS.openChat, ...extra });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ assignedTo: null, lastAssignedAgent: null });
      expect(ctx.emulator.chatParticipant(IDS.openChat)?.assignedTo).toBeNull();
    },
  );

  it('rule 3: the five booleans are always copied; omitted ones become false (a bare body reopens a closed chat)', async () => {
    const before = await get(IDS.openChat);
    expect(before).toMatchObject({
      missedConversation: true,
      afterHoursConversation: true,
      sendRatingWidget: true,
    });
    const res = await put({ id: IDS.openChat, assignedTo: { id: IDS.ada }, chatBotConversation: true });
    expect(res.body).toMatchObject({
      conversationClosed: false,
      missedConversation: false,
      afterHoursConversation: false,
      sendRatingWidget: false,
      chatBotConversation: true,
      // booleans outside rule 3 are kept
      unread: true,
    });
    const reopened = await put({ id: IDS.closedChat });
    expect(reopened.body).toMatchObject({ conversationClosed: false, chatBotConversation: false });
  });

  it('rule 4: fetching, toggling conversationClosed and sending the whole object back changes nothing else', async () => {
    const before = await get(IDS.closedChat);
    const res = await put({ ...before, conversationClosed: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, conversationClosed: false, openedBy: 'supervisor@demo.test' });
  });

  it('rule 5: terminating with sendRatingWidget true moves assignedTo to lastAssignedAgent, sets expectingRating, triggers the widget', async () => {
    const before = await get(IDS.openChat);
    const res = await put({ ...before, conversationClosed: true, sendRatingWidget: true }, KEYS.ada);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      conversationClosed: true,
      assignedTo: null,
      lastAssignedAgent: { id: IDS.ada, email: 'agent@demo.test' },
      expectingRating: true,
      terminatedBy: 'agent@demo.test',
    });
    const expected = {
      chatParticipantId: IDS.openChat,
      agentId: IDS.ada,
      triggeredBy: 'agent@demo.test',
      operation: 'terminateChatParticipantChat',
      time: new Date(ctx.emulator.clock.now()).toISOString(),
    };
    // observable from JS …
    expect([...ctx.emulator.state.ratingWidgets.values()]).toEqual([expect.objectContaining(expected)]);
    expect(ratingWidgetTriggers(ctx.emulator.state, IDS.openChat)).toHaveLength(1);
    // … and over the control surface
    const control = await ctx
      .api()
      .get('/_emulator/rating-widgets')
      .query({ chatParticipantId: IDS.openChat });
    expect(control.body).toMatchObject({ items: [expected], total: 1, nextCursor: null });
  });
});

describe('Chat participant closure transitions', () => {
  const table = [
    {
      name: 'open, terminate with conversationClosed true: closed, no widget without sendRatingWidget',
      chat: IDS.openChat,
      change: { conversationClosed: true, sendRatingWidget: false },
      expected: {
        conversationClosed: true,
        terminatedBy: 'supervisor@demo.test',
        assignedTo: { id: IDS.ada },
      },
      widgets: 0,
    },
    {
      name: 'closed, terminate with conversationClosed false: reopened',
      chat: IDS.closedChat,
      change: { conversationClosed: false },
      expected: { conversationClosed: false, openedBy: 'supervisor@demo.test' },
      widgets: 0,
    },
    {
      name: 'open, conversationClosed true and sendRatingWidget true: closed, agent moved, expectingRating, widget',
      chat: IDS.openChat,
      change: { conversationClosed: true, sendRatingWidget: true },
      expected: {
        conversationClosed: true,
        assignedTo: null,
        lastAssignedAgent: { id: IDS.ada },
        expectingRating: true,
      },
      widgets: 1,
    },
    {
      name: 'closed, conversationClosed true again with sendRatingWidget true: no transition, no widget',
      chat: IDS.closedChat,
      change: { conversationClosed: true, sendRatingWidget: true },
      // never set: '', as the field table types it (a plain string)
      expected: { conversationClosed: true, expectingRating: false, terminatedBy: '' },
      widgets: 0,
    },
  ] as const;

  it.each(table)('$name', async ({ chat, change, expected, widgets }) => {
    const res = await put({ ...(await get(chat)), ...change });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(expected);
    expect(ctx.emulator.state.ratingWidgets.size).toBe(widgets);
  });

  it('a closed chat no longer counts against the agent chat limit', async () => {
    expect(ctx.emulator.state.openChatCount(IDS.ada)).toBe(1);
    await put({ ...(await get(IDS.openChat)), conversationClosed: true, sendRatingWidget: false });
    expect(ctx.emulator.state.openChatCount(IDS.ada)).toBe(0);
  });

  it('reset() forgets the rating widgets', async () => {
    await put({ ...(await get(IDS.openChat)), conversationClosed: true });
    expect(ctx.emulator.state.ratingWidgets.size).toBe(1);
    ctx.emulator.reset();
    expect(ctx.emulator.state.ratingWidgets.size).toBe(0);
  });
});

describe('v2 terminate and reopen (only the chat id; actor from the API key)', () => {
  it('terminate closes, records the actor and triggers the widget when the chat has sendRatingWidget', async () => {
    const res = await ctx.api().post(v2(IDS.openChat, 'terminate')).set('authorization', KEYS.bob);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      conversationClosed: true,
      terminatedBy: 'bob@demo.test',
      assignedTo: null,
      lastAssignedAgent: { id: IDS.ada },
      expectingRating: true,
      // v2 does not touch the rule-3 flags
      missedConversation: true,
      afterHoursConversation: true,
    });
    expect(ratingWidgetTriggers(ctx.emulator.state)).toEqual([
      expect.objectContaining({ operation: 'terminateV2', triggeredBy: 'bob@demo.test', agentId: IDS.ada }),
    ]);
  });

  it('reopen opens a closed chat and records openedBy', async () => {
    const res = await ctx.api().post(v2(IDS.closedChat, 'reopen')).set('authorization', KEYS.ada);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ conversationClosed: false, openedBy: 'agent@demo.test' });
  });

  it.each([
    ['terminate', IDS.closedChat],
    ['reopen', IDS.openChat],
  ] as const)('%s of a chat already in that state is 409 ILLEGAL_TRANSITION', async (op, chat) => {
    const res = await ctx.api().post(v2(chat, op)).set('authorization', KEYS.supervisor);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 'ERROR', code: 'ILLEGAL_TRANSITION' });
  });
});

describe('live chat error conditions', () => {
  it('reopening is 409 when the customer already has another open chat on the number (both operations)', async () => {
    ctx.emulator.customerMessage({ number: '+27820000002', from: '+27831110002', text: 'new chat' });
    const v2res = await ctx.api().post(v2(IDS.closedChat, 'reopen')).set('authorization', KEYS.supervisor);
    expect(v2res.status).toBe(409);
    expect(v2res.body).toMatchObject({ code: 'CONFLICT' });
    const deprecated = await put({ id: IDS.closedChat, conversationClosed: false });
    expect(deprecated.status).toBe(409);
    expect(ctx.emulator.chatParticipant(IDS.closedChat)?.conversationClosed).toBe(true);
  });

  const cases = [
    {
      name: 'GET without id',
      send: () => ctx.api().get(`${CHAT}/ChatParticipant`),
      status: 400,
      field: 'id',
    },
    { name: 'GET unknown id', send: () => ctx.api().get(`${CHAT}/ChatParticipant?id=nope`), status: 404 },
    {
      name: "GET another client's chat",
      send: () => ctx.api().get(`${CHAT}/ChatParticipant`).query({ id: IDS.foreignChat }),
      status: 404,
    },
    {
      name: 'PUT without id',
      send: () => ctx.api().put(TERMINATE).send({ conversationClosed: true }),
      status: 400,
      field: 'id',
    },
    {
      name: 'PUT with a non-object body',
      send: () => ctx.api().put(TERMINATE).send([1]),
      status: 400,
      field: 'body',
    },
    {
      name: 'PUT with an unknown channel',
      send: () => ctx.api().put(TERMINATE).send({ id: IDS.openChat, channel: 'FAX' }),
      status: 400,
      field: 'channel',
    },
    {
      name: 'PUT with a non-boolean conversationClosed',
      send: () => ctx.api().put(TERMINATE).send({ id: IDS.openChat, conversationClosed: 'yes' }),
      status: 400,
      field: 'conversationClosed',
    },
    {
      name: 'PUT with assignedTo lacking an id',
      send: () => ctx.api().put(TERMINATE).send({ id: IDS.openChat, assignedTo: {} }),
      status: 400,
      field: 'assignedTo.id',
    },
    {
      name: 'PUT with an unknown assignedTo',
      send: () =>
        ctx
          .api()
          .put(TERMINATE)
          .send({ id: IDS.openChat, assignedTo: { id: 'ghost' } }),
      status: 404,
      field: 'assignedTo.id',
    },
    {
      name: "PUT with another client's user as assignedTo",
      send: () =>
        ctx
          .api()
          .put(TERMINATE)
          .send({ id: IDS.openChat, assignedTo: { id: IDS.olga } }),
      status: 404,
      field: 'assignedTo.id',
    },
    {
      name: 'PUT with an unknown team',
      send: () => ctx.api().put(TERMINATE).send({ id: IDS.openChat, team: 'nope' }),
      status: 400,
      field: 'team',
    },
    {
      name: "PUT on another client's chat",
      send: () => ctx.api().put(TERMINATE).send({ id: IDS.foreignChat }),
      status: 404,
    },
    {
      name: 'v2 terminate of an unknown id',
      send: () => ctx.api().post(v2('nope', 'terminate')),
      status: 404,
    },
    { name: 'v2 reopen of an unknown id', send: () => ctx.api().post(v2('nope', 'reopen')), status: 404 },
  ];

  it.each(cases)('$name: $status', async ({ send, status, field }) => {
    const before = structuredClone(ctx.emulator.chatParticipant(IDS.openChat));
    const res = await send().set('authorization', KEYS.supervisor);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status: 'ERROR', ...(field === undefined ? {} : { field }) });
    // a refused request changes nothing
    expect(ctx.emulator.chatParticipant(IDS.openChat)).toEqual(before);
  });

  it.each([
    ['GET', () => ctx.api().get(`${CHAT}/ChatParticipant?id=${IDS.openChat}`)],
    ['PUT terminateChatParticipantChat', () => ctx.api().put(TERMINATE).send({ id: IDS.openChat })],
    ['v2 terminate', () => ctx.api().post(v2(IDS.openChat, 'terminate'))],
    ['v2 reopen', () => ctx.api().post(v2(IDS.closedChat, 'reopen'))],
  ])('%s without an API key is 401 with the documented body', async (_, send) => {
    const res = await send();
    expect(res.status).toBe(401);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 'ERROR',
        message: expect.any(String),
        requestId: expect.any(String),
      }),
    );
  });
});
