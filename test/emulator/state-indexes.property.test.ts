/*
 * The state's indexes against a model of what they index (fast-check, fixed seed). The model
 * keeps plain lists and answers every lookup by scanning them: the contract as plainly as it can
 * be written. Random sequences of the state's changes (users created, re-keyed, renamed,
 * deleted; chats opened, closed, reopened, assigned; messages, rating widgets, configurations;
 * the retention limits reached) run on both; after each step every lookup and every listing
 * must agree, and a change the model refuses (a duplicate key, a customer's second open chat, a
 * taken configuration scope) must throw and change nothing.
 */
import fc from 'fast-check';
import { createEmptyState } from '../../src/emulator/state/store.js';
import {
  StateConflictError,
  type EmulatorChatParticipant,
  type EmulatorState,
  type Listing,
} from '../../src/emulator/index.js';

const SEED = Number(process.env.FC_SEED ?? 23_2026);
const LIMITS = { closedChats: 3, messages: 4, ratingWidgets: 3 };

const CLIENTS = ['c0', 'c1'];
/** Numbers: [link id, client id]. */
const NUMBERS = [
  ['n0', 'c0'],
  ['n1', 'c0'],
  ['n2', 'c1'],
] as const;
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4'];
const EMAILS = ['a@x.test', 'A@x.test', 'b@x.test', 'c@x.test'];
const SENDERS = ['+27830000001', '+27830000002', '+27830000003'];

interface ModelUser {
  id: string;
  clientId: string;
  apiKey: string;
  email: string;
  deleted: boolean;
}
interface ModelChat {
  id: string;
  numberId: string;
  clientId: string;
  sender: string;
  closed: boolean;
  assignedTo: string | null;
}

/** The contract: lists in creation order, lookups by scanning them. */
class Model {
  users: ModelUser[] = [];
  chats: ModelChat[] = [];
  messages: { gstId: string; chatId: string }[] = [];
  widgets: { id: string; chatId: string }[] = [];
  configs: { id: string; clientId: string; scope: string | null }[] = [];

  userByApiKey = (key: string) => this.users.find((u) => u.apiKey === key);
  liveUserByEmail = (email: string) =>
    this.users.find((u) => !u.deleted && u.email.toLowerCase() === email.toLowerCase());
  openChat = (numberId: string, sender: string) =>
    this.chats.find((c) => c.numberId === numberId && c.sender === sender && !c.closed);
  openChatCount = (userId: string) => this.chats.filter((c) => c.assignedTo === userId && !c.closed).length;
  configOf = (clientId: string, scope: string | null) =>
    this.configs.find((c) => c.clientId === clientId && c.scope === scope);

  /** Closes a chat; past the limit, the oldest closed chat (by creation) goes. */
  close(chat: ModelChat): void {
    chat.closed = true;
    while (this.chats.filter((c) => c.closed).length > LIMITS.closedChats) {
      const oldest = this.chats.find((c) => c.closed);
      this.chats = this.chats.filter((c) => c !== oldest);
    }
  }
}

type Step =
  | { op: 'addUser'; client: number; key: number; email: number; deleted: boolean }
  | { op: 'setKey'; user: number; key: number }
  | { op: 'setEmail'; user: number; email: number }
  | { op: 'setDeleted'; user: number; deleted: boolean }
  | { op: 'addChat'; number: number; sender: number; closed: boolean; agent: number | null }
  | { op: 'setClosed'; chat: number; closed: boolean }
  | { op: 'assign'; chat: number; agent: number | null }
  | { op: 'addMessage'; chat: number }
  | { op: 'addWidget'; chat: number }
  | { op: 'putConfig'; client: number; number: number | null }
  | { op: 'deleteConfig'; config: number };

const index = (max: number) => fc.integer({ min: 0, max });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('addUser' as const),
    client: index(1),
    key: index(KEYS.length - 1),
    email: index(EMAILS.length - 1),
    deleted: fc.boolean(),
  }),
  fc.record({ op: fc.constant('setKey' as const), user: index(9), key: index(KEYS.length - 1) }),
  fc.record({ op: fc.constant('setEmail' as const), user: index(9), email: index(EMAILS.length - 1) }),
  fc.record({ op: fc.constant('setDeleted' as const), user: index(9), deleted: fc.boolean() }),
  fc.record({
    op: fc.constant('addChat' as const),
    number: index(NUMBERS.length - 1),
    sender: index(SENDERS.length - 1),
    closed: fc.boolean(),
    agent: fc.option(index(9), { nil: null }),
  }),
  fc.record({ op: fc.constant('setClosed' as const), chat: index(19), closed: fc.boolean() }),
  fc.record({
    op: fc.constant('assign' as const),
    chat: index(19),
    agent: fc.option(index(9), { nil: null }),
  }),
  fc.record({ op: fc.constant('addMessage' as const), chat: index(19) }),
  fc.record({ op: fc.constant('addWidget' as const), chat: index(19) }),
  fc.record({
    op: fc.constant('putConfig' as const),
    client: index(1),
    number: fc.option(index(NUMBERS.length - 1), { nil: null }),
  }),
  fc.record({ op: fc.constant('deleteConfig' as const), config: index(9) }),
);

/** A chat record for the state (the fields the indexes read, and the rest of a record). */
function chatRecord(id: string, numberId: string, clientId: string, sender: string): EmulatorChatParticipant {
  return {
    id,
    clientRef: clientId,
    messagingClientNumber: numberId,
    sender,
    userId: `BSUID.${sender}`,
    username: null,
    parentUserId: null,
    firstName: '',
    lastName: '',
    email: null,
    subject: null,
    team: null,
    conversationClosed: false,
    missedConversation: false,
    afterHoursConversation: false,
    chatBotConversation: true,
    sendRatingWidget: false,
    channel: 'MESSAGING',
    conversationStatus: 'NEW',
    assignedTo: null,
    lastAssignedAgent: null,
    openedBy: null,
    terminatedBy: null,
    unread: false,
    rated: false,
    expectingRating: false,
    companyName: null,
    accountNumber: null,
    activeFlow: null,
    nodeName: null,
    botName: null,
    timezone: null,
    gstn: null,
    ctn: null,
    clientId,
    numberId,
    fullName: '',
    phoneNumber: sender,
    createdTime: '2026-01-01T00:00:00.000Z',
    lastMessageTime: '2026-01-01T00:00:00.000Z',
    customerLastMessageTime: null,
    conversationId: `conversation-${id}`,
    engineParticipantId: `engine-${id}`,
    lastOutboundTemplate: null,
  };
}

/** Every page of a listing, `limit` at a time, concatenated: the listing in order. */
function pages<T>(listing: Listing<T>, order: 'asc' | 'desc', key: (item: T) => string): string[] {
  const seen: string[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = listing.page({ cursor, limit: 2, order });
    seen.push(...page.items.map(key));
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
  }
}

function expectAgreement(state: EmulatorState, model: Model): void {
  const id = (record: { id: string } | undefined) => record?.id;
  for (const key of KEYS) expect(id(state.userByApiKey(key))).toBe(id(model.userByApiKey(key)));
  for (const email of EMAILS) expect(id(state.liveUserByEmail(email))).toBe(id(model.liveUserByEmail(email)));
  for (const clientId of CLIENTS) {
    expect([...state.usersOfClient(clientId)].map((u) => u.id)).toEqual(
      model.users.filter((u) => u.clientId === clientId).map((u) => u.id),
    );
    for (const scope of [null, ...NUMBERS.map(([numberId]) => `m-${numberId}`)]) {
      expect(id(state.webhookConfigOf(clientId, scope))).toBe(id(model.configOf(clientId, scope)));
    }
    expect(state.webhookConfigsOfClient(clientId).map((c) => c.id)).toEqual(
      model.configs.filter((c) => c.clientId === clientId).map((c) => c.id),
    );
  }
  for (const [numberId] of NUMBERS) {
    for (const sender of SENDERS) {
      expect(id(state.openChat(numberId, sender))).toBe(id(model.openChat(numberId, sender)));
    }
  }
  for (const user of model.users) expect(state.openChatCount(user.id)).toBe(model.openChatCount(user.id));
  for (const chat of model.chats) {
    expect(state.ratingWidgetsOf(chat.id).map((w) => w.id)).toEqual(
      model.widgets.filter((w) => w.chatId === chat.id).map((w) => w.id),
    );
    const stored = state.chatParticipants.get(chat.id);
    expect([stored?.conversationClosed, stored?.assignedTo]).toEqual([chat.closed, chat.assignedTo]);
  }
  expect([...state.chatParticipants.keys()].sort()).toEqual(model.chats.map((c) => c.id).sort());
  expect([...state.messages.keys()]).toEqual(model.messages.map((m) => m.gstId));
  expect([...state.ratingWidgets.keys()]).toEqual(model.widgets.map((w) => w.id));
  const chatId = (chat: EmulatorChatParticipant) => chat.id;
  const { listings } = state;
  expect(pages(listings.chatParticipants, 'asc', chatId)).toEqual(model.chats.map((c) => c.id));
  expect(pages(listings.chatParticipants, 'desc', chatId)).toEqual(model.chats.map((c) => c.id).reverse());
  const ids = (closed: boolean) => model.chats.filter((c) => c.closed === closed).map((c) => c.id);
  expect(pages(listings.openChats, 'asc', chatId)).toEqual(ids(false));
  expect(pages(listings.openChats, 'desc', chatId)).toEqual(ids(false).reverse());
  expect(pages(listings.closedChats, 'asc', chatId)).toEqual(ids(true));
  expect(pages(listings.messages, 'desc', (m) => m.gstId)).toEqual(
    model.messages.map((m) => m.gstId).reverse(),
  );
  expect(pages(listings.ratingWidgets, 'asc', (w) => w.id)).toEqual(model.widgets.map((w) => w.id));
}

/** Applies a step to both; the model says whether the state must refuse it. */
function apply(state: EmulatorState, model: Model, s: Step, serial: number): void {
  const refuses = (change: () => void): void => {
    expect(change).toThrow(StateConflictError);
  };
  const userAt = (n: number) => model.users[n % Math.max(1, model.users.length)];
  const chatAt = (n: number) => model.chats[n % Math.max(1, model.chats.length)];
  switch (s.op) {
    case 'addUser': {
      const user: ModelUser = {
        id: `u${serial}`,
        clientId: CLIENTS[s.client] as string,
        apiKey: KEYS[s.key] as string,
        email: EMAILS[s.email] as string,
        deleted: s.deleted,
      };
      const record = {
        ...user,
        clientRef: user.clientId,
        firstName: '',
        lastName: '',
        role: 'CLIENT',
        liveChatRole: 'AGENT' as const,
        password: 'p',
        tempPassword: null,
        availabilityStatus: true,
        agentChatLimit: 5,
        disabled: false,
        teamIds: [],
        assignmentMessage: null,
      };
      if (
        model.userByApiKey(user.apiKey) !== undefined ||
        (!user.deleted && model.liveUserByEmail(user.email))
      ) {
        return refuses(() => state.addUser(record));
      }
      state.addUser(record);
      model.users.push(user);
      return;
    }
    case 'setKey': {
      const user = userAt(s.user);
      if (user === undefined) return;
      const key = KEYS[s.key] as string;
      const stored = state.users.get(user.id)!;
      const holder = model.userByApiKey(key);
      if (holder !== undefined && holder !== user) return refuses(() => state.setUserApiKey(stored, key));
      state.setUserApiKey(stored, key);
      user.apiKey = key;
      return;
    }
    case 'setEmail': {
      const user = userAt(s.user);
      if (user === undefined) return;
      const email = EMAILS[s.email] as string;
      const stored = state.users.get(user.id)!;
      const holder = model.liveUserByEmail(email);
      if (!user.deleted && holder !== undefined && holder !== user) {
        return refuses(() => state.setUserEmail(stored, email));
      }
      state.setUserEmail(stored, email);
      user.email = email;
      return;
    }
    case 'setDeleted': {
      const user = userAt(s.user);
      if (user === undefined) return;
      const stored = state.users.get(user.id)!;
      const holder = model.liveUserByEmail(user.email);
      if (user.deleted && !s.deleted && holder !== undefined) {
        return refuses(() => state.setUserDeleted(stored, false));
      }
      state.setUserDeleted(stored, s.deleted);
      user.deleted = s.deleted;
      return;
    }
    case 'addChat': {
      const [numberId, clientId] = NUMBERS[s.number] as readonly [string, string];
      const sender = SENDERS[s.sender] as string;
      const agent = s.agent === null ? null : (userAt(s.agent)?.id ?? null);
      const chat: ModelChat = {
        id: `chat${serial}`,
        numberId,
        clientId,
        sender,
        closed: s.closed,
        assignedTo: agent,
      };
      const record = {
        ...chatRecord(chat.id, numberId, clientId, sender),
        conversationClosed: s.closed,
        assignedTo: agent,
      };
      if (!s.closed && model.openChat(numberId, sender) !== undefined) {
        return refuses(() => state.addChatParticipant(record));
      }
      state.addChatParticipant(record);
      model.chats.push(chat);
      if (s.closed) model.close(chat);
      return;
    }
    case 'setClosed': {
      const chat = chatAt(s.chat);
      if (chat === undefined || chat.closed === s.closed) return;
      const stored = state.chatParticipants.get(chat.id)!;
      if (s.closed) {
        state.setConversationClosed(stored, true);
        model.close(chat);
        return;
      }
      if (model.openChat(chat.numberId, chat.sender) !== undefined) {
        return refuses(() => state.setConversationClosed(stored, false));
      }
      state.setConversationClosed(stored, false);
      chat.closed = false;
      return;
    }
    case 'assign': {
      const chat = chatAt(s.chat);
      if (chat === undefined) return;
      const agent = s.agent === null ? null : (userAt(s.agent)?.id ?? null);
      state.setAssignedTo(state.chatParticipants.get(chat.id)!, agent);
      chat.assignedTo = agent;
      return;
    }
    case 'addMessage': {
      const chat = chatAt(s.chat);
      if (chat === undefined) return;
      const gstId = `g${serial}`;
      state.addMessage({
        gstId,
        clientId: chat.clientId,
        numberId: chat.numberId,
        chatParticipantId: chat.id,
        to: chat.sender,
        recipientUserId: `BSUID.${chat.sender}`,
        conversationId: `conversation-${chat.id}`,
        participantId: `engine-${chat.id}`,
        voice: false,
        template: null,
        ctId: null,
        conversationCtId: null,
        status: 'ACCEPTED',
        sendTime: '2026-01-01T00:00:00.000Z',
        deliveryTime: null,
        readTime: null,
        playedTime: null,
        errorCode: null,
        errorCodeString: null,
      });
      model.messages.push({ gstId, chatId: chat.id });
      if (model.messages.length > LIMITS.messages) model.messages.shift();
      return;
    }
    case 'addWidget': {
      const chat = chatAt(s.chat);
      if (chat === undefined) return;
      const widget = { id: `w${serial}`, chatId: chat.id };
      state.addRatingWidget({
        id: widget.id,
        chatParticipantId: chat.id,
        agentId: null,
        triggeredBy: 'a@x.test',
        operation: 'terminateV2',
        time: '2026-01-01T00:00:00.000Z',
      });
      model.widgets.push(widget);
      if (model.widgets.length > LIMITS.ratingWidgets) model.widgets.shift();
      return;
    }
    case 'putConfig': {
      const clientId = CLIENTS[s.client] as string;
      const scope = s.number === null ? null : `m-${NUMBERS[s.number]?.[0] ?? ''}`;
      const config = {
        id: `cfg${serial}`,
        clientId,
        messagingNumberId: scope,
        messagingNumberMsisdn: null,
        chatbotIncludeOutgoing: false,
        chatbotStopOnAgentAssignment: false,
        chatbotPayloadVersion: null,
      };
      if (model.configOf(clientId, scope) !== undefined) return refuses(() => state.putWebhookConfig(config));
      state.putWebhookConfig(config);
      model.configs.push({ id: config.id, clientId, scope });
      return;
    }
    case 'deleteConfig': {
      const config = model.configs[s.config % Math.max(1, model.configs.length)];
      if (config === undefined) return;
      state.deleteWebhookConfig(config.id);
      model.configs = model.configs.filter((c) => c !== config);
      return;
    }
  }
}

describe('the state indexes against a model that scans (fixed seed)', () => {
  it('answers every lookup and listing as the model does, over random changes', () => {
    let runs = 0;
    try {
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
          runs += 1;
          const state = createEmptyState(LIMITS);
          const model = new Model();
          steps.forEach((s, serial) => {
            apply(state, model, s, serial);
            expectAgreement(state, model);
          });
          state.clear();
          expectAgreement(state, new Model());
        }),
        { seed: SEED, numRuns: 100 },
      );
    } catch (error) {
      throw new Error(`property failed with seed ${SEED} (rerun: FC_SEED=${SEED})`, { cause: error });
    }
    expect(runs).toBe(100);
  });
});
