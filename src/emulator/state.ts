import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { DeliveryStatus, SessionStatusType, WebhookConfig } from '../schemas/index.js';

/*
 * The emulator's state: plain records in Maps, one Map per resource, keyed by id. Routes and
 * triggers read and write it through the helpers below; nothing else holds state. Seed input is
 * validated with the zod schemas here, and the record types are inferred from them.
 */

const id = z.string().min(1);
const nullableString = z.string().nullable();

/** A client (the Client resource). Fields beyond id and clientRef are kept as given. */
export const clientSeedSchema = z.looseObject({
  /** @default a random UUID */
  id: id.optional(),
  clientRef: id,
  /** Credit balance, read by the credits operations. @default 100 */
  clientMessagingBalance: z.number().default(100),
});
export type ClientSeed = z.input<typeof clientSeedSchema>;
export type EmulatorClient = z.output<typeof clientSeedSchema> & { readonly id: string };

/** A team of a client; chat participants are routed to teams (teamId/teamName in v2 payloads). */
export const teamSeedSchema = z.object({
  id: id.optional(),
  clientRef: id,
  name: id,
});
export type TeamSeed = z.input<typeof teamSeedSchema>;
export type EmulatorTeam = z.output<typeof teamSeedSchema> & {
  readonly id: string;
  readonly clientId: string;
};

/** Live-chat roles (SystemUser.liveChatRole). */
export const LIVE_CHAT_ROLES = ['SUPERVISOR', 'AGENT'] as const;
export type LiveChatRole = (typeof LIVE_CHAT_ROLES)[number];

/**
 * A user (SystemUser). Other SystemUser fields (mobileNumber, avatar, ...) are kept as given,
 * so user-management routes can store and return them.
 */
export const userSeedSchema = z.looseObject({
  id: id.optional(),
  /** The user's client. */
  clientRef: id,
  email: id,
  firstName: z.string().default(''),
  lastName: z.string().default(''),
  role: z.string().default('CLIENT'),
  liveChatRole: z.enum(LIVE_CHAT_ROLES).nullable().default('AGENT'),
  /** Sent as `Authorization: <apiKey>`; unique across the emulator. */
  apiKey: id,
  /** @default 'password' */
  password: z.string().default('password'),
  tempPassword: nullableString.default(null),
  /** Online (true) or offline. @default true */
  availabilityStatus: z.boolean().default(true),
  /** Maximum concurrent chats. @default 5 */
  agentChatLimit: z.number().int().min(0).default(5),
  disabled: z.boolean().default(false),
  deleted: z.boolean().default(false),
  /** Ids of the teams the user belongs to. */
  teamIds: z.array(z.string()).default([]),
  /** Message sent to the customer on assignment; null: 'Assigned to <agent name>'. */
  assignmentMessage: nullableString.default(null),
});
export type UserSeed = z.input<typeof userSeedSchema>;
export type EmulatorUser = z.output<typeof userSeedSchema> & { id: string; clientId: string };

/** Lite numbers have sessions (and session webhooks); Cloud numbers have none. */
export const NUMBER_KINDS = ['lite', 'cloud'] as const;
export type NumberKind = (typeof NUMBER_KINDS)[number];

/** A number of a client: the client-number link and its nested messaging number. */
export const numberSeedSchema = z.object({
  /** The client-number link id (MessagingClientNumberResponse.id). @default a random UUID */
  id: id.optional(),
  clientRef: id,
  /** The nested messaging number id: the value to send as messagingNumberId. @default a random UUID */
  messagingNumberId: id.optional(),
  /** The phone number, E.164 with the leading +. */
  msisdn: id,
  /** messagingNumber.messagingProvider. @default 'Messaging' */
  provider: z.string().default('Messaging'),
  /** @default 'cloud' */
  kind: z.enum(NUMBER_KINDS).default('cloud'),
});
export type NumberSeed = z.input<typeof numberSeedSchema>;
export interface EmulatorNumber {
  /** Client-number link id. */
  readonly id: string;
  readonly clientId: string;
  readonly messagingNumber: {
    readonly id: string;
    readonly number: string;
    readonly messagingProvider: string;
  };
  readonly kind: NumberKind;
}

/** The channel enum of ChatParticipant. */
export const CHANNELS = ['MESSAGING', 'WEB', 'SOCIAL'] as const;

/**
 * A chat participant (ChatParticipant): one customer's conversation on one of the client's
 * numbers. assignedTo and lastAssignedAgent are stored as user ids (the resource renders them
 * as objects).
 */
export const chatParticipantSeedSchema = z.object({
  id: id.optional(),
  clientRef: id,
  /** The client's number the conversation runs on (msisdn). */
  messagingClientNumber: id,
  /** The customer's phone number. */
  sender: id,
  /** The customer's BSUID. @default a generated one */
  userId: id.optional(),
  username: nullableString.default(null),
  parentUserId: nullableString.default(null),
  firstName: z.string().default(''),
  lastName: z.string().default(''),
  email: nullableString.default(null),
  subject: nullableString.default(null),
  /** Team id (see teams). */
  team: nullableString.default(null),
  conversationClosed: z.boolean().default(false),
  missedConversation: z.boolean().default(false),
  afterHoursConversation: z.boolean().default(false),
  chatBotConversation: z.boolean().default(true),
  sendRatingWidget: z.boolean().default(false),
  channel: z.enum(CHANNELS).default('MESSAGING'),
  conversationStatus: z.string().default('NEW'),
  /** Assigned agent's user id. */
  assignedTo: nullableString.default(null),
  /** Previously assigned agent's user id. */
  lastAssignedAgent: nullableString.default(null),
  openedBy: nullableString.default(null),
  terminatedBy: nullableString.default(null),
  unread: z.boolean().default(false),
  rated: z.boolean().default(false),
  expectingRating: z.boolean().default(false),
  companyName: nullableString.default(null),
  accountNumber: nullableString.default(null),
  activeFlow: nullableString.default(null),
  nodeName: nullableString.default(null),
  botName: nullableString.default(null),
  timezone: nullableString.default(null),
  /** Global system tracking number. */
  gstn: nullableString.default(null),
  /** Client tracking number. */
  ctn: nullableString.default(null),
});
export type ChatParticipantSeed = z.input<typeof chatParticipantSeedSchema>;
export type EmulatorChatParticipant = Omit<z.output<typeof chatParticipantSeedSchema>, 'id' | 'userId'> & {
  id: string;
  userId: string;
  clientId: string;
  /** Link id of the number. */
  numberId: string;
  fullName: string;
  phoneNumber: string;
  createdTime: string;
  lastMessageTime: string;
  customerLastMessageTime: string | null;
  /** Conversation UUID carried as conversationId on incoming and status payloads. */
  conversationId: string;
  /** Conversation-engine participant UUID (participantId on incoming/status; not the chat id). */
  engineParticipantId: string;
  /** Template of the last outbound message, or null after a free-form one (templateId/templateName rule). */
  lastOutboundTemplate: { readonly id: string; readonly name: string } | null;
};

/** A stored webhook configuration: the documented row plus its client. */
export type StoredWebhookConfig = WebhookConfig & { readonly clientId: string };

/** An outbound message and its delivery status (section States and transitions). */
export interface OutboundMessage {
  readonly gstId: string;
  readonly clientId: string;
  /** Link id of the sending number. */
  readonly numberId: string;
  readonly chatParticipantId: string;
  readonly voice: boolean;
  readonly template: { readonly id: string; readonly name: string } | null;
  readonly ctId: string | null;
  readonly conversationCtId: string | null;
  status: DeliveryStatus;
  sendTime: string;
  deliveryTime: string | null;
  readTime: string | null;
  playedTime: string | null;
  errorCode: string | null;
  errorCodeString: string | null;
}

/** A Lite number's session. */
export interface SessionState {
  statusType: SessionStatusType | null;
  status: string | null;
  /** Emulator time (Unix ms) until which the number cannot reconnect, or null. */
  flaggedUntil: number | null;
}

/** The whole seed: every list optional. */
export const emulatorSeedSchema = z.object({
  clients: z.array(clientSeedSchema).default([]),
  teams: z.array(teamSeedSchema).default([]),
  users: z.array(userSeedSchema).default([]),
  numbers: z.array(numberSeedSchema).default([]),
  chatParticipants: z.array(chatParticipantSeedSchema).default([]),
});
export type EmulatorSeed = z.input<typeof emulatorSeedSchema>;

/** The emulator's mutable state. */
export interface EmulatorState {
  readonly clients: Map<string, EmulatorClient>;
  readonly teams: Map<string, EmulatorTeam>;
  readonly users: Map<string, EmulatorUser>;
  readonly numbers: Map<string, EmulatorNumber>;
  readonly webhookConfigs: Map<string, StoredWebhookConfig>;
  readonly chatParticipants: Map<string, EmulatorChatParticipant>;
  readonly messages: Map<string, OutboundMessage>;
  /** Keyed by number link id. */
  readonly sessions: Map<string, SessionState>;
  /** Rating widgets triggered by chat termination, keyed by trigger id (routes/live-chat.ts). */
  readonly ratingWidgets: Map<string, RatingWidgetTrigger>;
}

/**
 * A rating widget the platform would send to the customer: recorded when a chat is terminated
 * with sendRatingWidget true (Chat participant closure; merge rule 5).
 */
export interface RatingWidgetTrigger {
  readonly id: string;
  readonly chatParticipantId: string;
  /** The agent being rated: lastAssignedAgent after the move (user id), or null. */
  readonly agentId: string | null;
  /** E-mail of the user whose API key terminated the chat. */
  readonly triggeredBy: string;
  /** The operation that terminated the chat. */
  readonly operation: 'terminateChatParticipantChat' | 'terminateV2';
  /** ISO 8601, emulator clock. */
  readonly time: string;
}

/** The default seed's fixed API keys, so docs and tests can use them without reading state. */
export const DEFAULT_API_KEYS = {
  supervisor: 'emu-supervisor-key',
  agent: 'emu-agent-key',
  otherClient: 'emu-other-client-key',
} as const;

const fixedId = (n: number): string => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;

/**
 * The zero-config seed: client `demo` with a supervisor, two agents and a team, a Lite and a
 * Cloud number, and client `other` with one user and one number (for scope rule 6). Ids are
 * fixed so documentation examples work as written.
 */
export function createDefaultSeed(): EmulatorSeed {
  return {
    clients: [
      { id: fixedId(1), clientRef: 'demo' },
      { id: fixedId(2), clientRef: 'other' },
    ],
    teams: [
      { id: fixedId(11), clientRef: 'demo', name: 'Sales' },
      { id: fixedId(12), clientRef: 'demo', name: 'Support' },
    ],
    users: [
      {
        id: fixedId(21),
        clientRef: 'demo',
        email: 'supervisor@demo.test',
        firstName: 'Sam',
        lastName: 'Supervisor',
        liveChatRole: 'SUPERVISOR',
        apiKey: DEFAULT_API_KEYS.supervisor,
        teamIds: [fixedId(11), fixedId(12)],
      },
      {
        id: fixedId(22),
        clientRef: 'demo',
        email: 'agent@demo.test',
        firstName: 'Ada',
        lastName: 'Agent',
        liveChatRole: 'AGENT',
        apiKey: DEFAULT_API_KEYS.agent,
        agentChatLimit: 2,
        teamIds: [fixedId(11)],
      },
      {
        id: fixedId(23),
        clientRef: 'demo',
        email: 'bob@demo.test',
        firstName: 'Bob',
        lastName: 'Agent',
        liveChatRole: 'AGENT',
        apiKey: 'emu-agent2-key',
        agentChatLimit: 1,
        teamIds: [fixedId(12)],
      },
      {
        id: fixedId(24),
        clientRef: 'other',
        email: 'admin@other.test',
        firstName: 'Olga',
        lastName: 'Other',
        liveChatRole: 'SUPERVISOR',
        apiKey: DEFAULT_API_KEYS.otherClient,
      },
    ],
    numbers: [
      {
        id: fixedId(31),
        messagingNumberId: fixedId(41),
        clientRef: 'demo',
        msisdn: '+27820000001',
        kind: 'lite',
      },
      {
        id: fixedId(32),
        messagingNumberId: fixedId(42),
        clientRef: 'demo',
        msisdn: '+27820000002',
        kind: 'cloud',
      },
      {
        id: fixedId(33),
        messagingNumberId: fixedId(43),
        clientRef: 'other',
        msisdn: '+27830000001',
        kind: 'cloud',
      },
    ],
  };
}

/** An empty state. */
export function createEmptyState(): EmulatorState {
  return {
    clients: new Map(),
    teams: new Map(),
    users: new Map(),
    numbers: new Map(),
    webhookConfigs: new Map(),
    chatParticipants: new Map(),
    messages: new Map(),
    sessions: new Map(),
    ratingWidgets: new Map(),
  };
}

/** Thrown when a seed does not validate or refers to something it does not define. */
export class SeedError extends TypeError {
  override readonly name = 'SeedError';
}

/**
 * Loads a seed into `state` (added to what is there). Throws {@link SeedError} naming the field
 * when the seed is malformed or refers to an unknown clientRef, team or number.
 */
export function applySeed(state: EmulatorState, seed: EmulatorSeed, now: Date): void {
  const parsed = emulatorSeedSchema.safeParse(seed);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SeedError(`Invalid emulator seed at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
  }
  const data = parsed.data;
  for (const client of data.clients) {
    const record: EmulatorClient = { ...client, id: client.id ?? randomUUID() };
    state.clients.set(record.id, record);
  }
  for (const team of data.teams) {
    const clientId = clientIdOfRef(state, team.clientRef);
    const record: EmulatorTeam = { ...team, id: team.id ?? randomUUID(), clientId };
    state.teams.set(record.id, record);
  }
  for (const user of data.users) {
    const clientId = clientIdOfRef(state, user.clientRef);
    if (findUserByApiKey(state, user.apiKey) !== undefined) {
      throw new SeedError(`Invalid emulator seed: apiKey of ${user.email} is already used`);
    }
    for (const teamId of user.teamIds) {
      if (!state.teams.has(teamId)) throw new SeedError(`Invalid emulator seed: unknown team ${teamId}`);
    }
    const record: EmulatorUser = { ...user, id: user.id ?? randomUUID(), clientId };
    state.users.set(record.id, record);
  }
  for (const number of data.numbers) {
    const clientId = clientIdOfRef(state, number.clientRef);
    const record: EmulatorNumber = {
      id: number.id ?? randomUUID(),
      clientId,
      messagingNumber: {
        id: number.messagingNumberId ?? randomUUID(),
        number: number.msisdn,
        messagingProvider: number.provider,
      },
      kind: number.kind,
    };
    state.numbers.set(record.id, record);
    if (record.kind === 'lite') {
      state.sessions.set(record.id, { statusType: null, status: null, flaggedUntil: null });
    }
  }
  for (const participant of data.chatParticipants) {
    const clientId = clientIdOfRef(state, participant.clientRef);
    const number = findNumberByMsisdn(state, participant.messagingClientNumber);
    if (number === undefined || number.clientId !== clientId) {
      throw new SeedError(
        `Invalid emulator seed: ${participant.messagingClientNumber} is not a number of ${participant.clientRef}`,
      );
    }
    const record = newChatParticipant(state, number, participant.sender, now, participant);
    state.chatParticipants.set(record.id, record);
  }
}

function clientIdOfRef(state: EmulatorState, clientRef: string): string {
  const client = findClientByRef(state, clientRef);
  if (client === undefined) throw new SeedError(`Invalid emulator seed: unknown clientRef ${clientRef}`);
  return client.id;
}

/** Builds a chat participant record for a customer on a number (not stored). */
export function newChatParticipant(
  state: EmulatorState,
  number: EmulatorNumber,
  sender: string,
  now: Date,
  seed: Partial<z.output<typeof chatParticipantSeedSchema>> = {},
): EmulatorChatParticipant {
  const defaults = chatParticipantSeedSchema.parse({
    clientRef: 'x',
    messagingClientNumber: number.messagingNumber.number,
    sender,
  });
  const merged = { ...defaults, ...seed };
  const time = now.toISOString();
  const fullName = [merged.firstName, merged.lastName].filter((part) => part !== '').join(' ');
  return {
    ...merged,
    id: merged.id ?? randomUUID(),
    userId: merged.userId ?? bsuidFor(sender),
    clientId: number.clientId,
    clientRef: state.clients.get(number.clientId)?.clientRef ?? '',
    numberId: number.id,
    messagingClientNumber: number.messagingNumber.number,
    sender,
    fullName,
    phoneNumber: sender,
    createdTime: time,
    lastMessageTime: time,
    customerLastMessageTime: null,
    conversationId: randomUUID(),
    engineParticipantId: randomUUID(),
    lastOutboundTemplate: null,
  };
}

/**
 * A BSUID for a customer phone number. The BSUID format is not shown in the documentation;
 * the emulator derives a stable `BSUID.<digits>` so the same customer keeps the same id.
 */
export function bsuidFor(msisdn: string): string {
  return `BSUID.${msisdn.replace(/\D/g, '')}`;
}

/** The first record of a state Map that `match` accepts. */
function findIn<T>(records: ReadonlyMap<string, T>, match: (record: T) => boolean): T | undefined {
  for (const record of records.values()) if (match(record)) return record;
  return undefined;
}

/** The client with a clientRef. */
export function findClientByRef(state: EmulatorState, clientRef: string): EmulatorClient | undefined {
  return findIn(state.clients, (client) => client.clientRef === clientRef);
}

/** The user owning an API key, whether or not it is disabled (callers decide). */
export function findUserByApiKey(state: EmulatorState, apiKey: string): EmulatorUser | undefined {
  return findIn(state.users, (user) => user.apiKey === apiKey);
}

/** The number with a phone number (E.164, as stored). */
export function findNumberByMsisdn(state: EmulatorState, msisdn: string): EmulatorNumber | undefined {
  return findIn(state.numbers, (number) => number.messagingNumber.number === msisdn);
}

/** Finds a number by its nested messaging number id (the messagingNumberId of the webhook API). */
export function findNumberByMessagingNumberId(state: EmulatorState, id: string): EmulatorNumber | undefined {
  return findIn(state.numbers, (number) => number.messagingNumber.id === id);
}

/** Finds a number by msisdn, link id or nested number id: whatever a control call names it by. */
export function findNumber(state: EmulatorState, ref: string): EmulatorNumber | undefined {
  return (
    state.numbers.get(ref) ?? findNumberByMessagingNumberId(state, ref) ?? findNumberByMsisdn(state, ref)
  );
}

/** The numbers linked to a client. */
export function numbersOfClient(state: EmulatorState, clientId: string): EmulatorNumber[] {
  return [...state.numbers.values()].filter((number) => number.clientId === clientId);
}

/** A client's webhook configurations (default and overrides), in creation order. */
export function webhookConfigsOfClient(state: EmulatorState, clientId: string): StoredWebhookConfig[] {
  return [...state.webhookConfigs.values()].filter((config) => config.clientId === clientId);
}

/** The open chat participant of a customer on a number, if any. */
export function findOpenChatParticipant(
  state: EmulatorState,
  numberId: string,
  sender: string,
): EmulatorChatParticipant | undefined {
  // a load test sends thousands of customers' messages: remember the last hit per (number,
  // customer) and check it is still that open chat before trusting it, else scan
  let hits = openChatHits.get(state.chatParticipants);
  if (hits === undefined) {
    hits = new Map();
    openChatHits.set(state.chatParticipants, hits);
  }
  const key = `${numberId} ${sender}`;
  const cached = state.chatParticipants.get(hits.get(key) ?? '');
  if (cached?.numberId === numberId && cached.sender === sender && !cached.conversationClosed) return cached;
  for (const participant of state.chatParticipants.values()) {
    if (
      participant.numberId === numberId &&
      participant.sender === sender &&
      !participant.conversationClosed
    ) {
      hits.set(key, participant.id);
      return participant;
    }
  }
  return undefined;
}

/** Last open chat found per `numberId sender`, per participant Map (a hint, always re-checked). */
const openChatHits = new WeakMap<ReadonlyMap<string, EmulatorChatParticipant>, Map<string, string>>();

/** Display name of a user: first and last name, else the e-mail. */
export function userDisplayName(user: Pick<EmulatorUser, 'firstName' | 'lastName' | 'email'>): string {
  const name = [user.firstName, user.lastName].filter((part) => part !== '').join(' ');
  return name === '' ? user.email : name;
}

/** Open chats currently assigned to a user (counted against agentChatLimit). */
export function activeChatCount(state: EmulatorState, userId: string): number {
  let count = 0;
  for (const participant of state.chatParticipants.values()) {
    if (participant.assignedTo === userId && !participant.conversationClosed) count += 1;
  }
  return count;
}
