import { z } from 'zod';
import {
  DELIVERY_STATUSES,
  SESSION_STATUS_TYPES,
  webhookConfigSchema,
  type DeliveryStatus,
} from '../../schemas/index.js';
import { emulatorTimeSchema } from '../clock.js';

/*
 * What the emulator's state holds, as zod schemas: the seed (what a test writes to start from)
 * and the records (what the state keeps, and what a snapshot lists). The record types are
 * inferred from the record schemas; the fields the state's indexes are keyed by are readonly in
 * those types, so they change only through the state's own methods (state/store.ts), which keep
 * the indexes right.
 */

const id = z.string().min(1);
const nullableString = z.string().nullable();

/** `T` with the keys `K` readonly (index signatures of loose records kept). */
export type WithReadonly<T, K extends keyof T> = {
  readonly [P in keyof T as P extends K ? P : never]: T[P];
} & { [P in keyof T as P extends K ? never : P]: T[P] };

// ---------------------------------------------------------------------------------------------
// Seeds

/** A client (the Client resource). Fields beyond id and clientRef are kept as given. */
export const clientSeedSchema = z.looseObject({
  /** @default a random UUID */
  id: id.optional(),
  clientRef: id,
  /** Credit balance, read by the credits operations. @default 100 */
  clientMessagingBalance: z.number().default(100),
});
export type ClientSeed = z.input<typeof clientSeedSchema>;

/** A team of a client; chat participants are routed to teams (teamId/teamName in v2 payloads). */
export const teamSeedSchema = z.object({
  id: id.optional(),
  clientRef: id,
  name: id,
});
export type TeamSeed = z.input<typeof teamSeedSchema>;

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

/** The channel enum of ChatParticipant. */
export const CHANNELS = ['MESSAGING', 'WEB', 'SOCIAL'] as const;

/**
 * A chat participant (ChatParticipant): one customer's conversation on one of the client's
 * numbers. assignedTo and lastAssignedAgent are stored as user ids (the resource renders them
 * as objects); team as a team id or null (rendered as '' when null: the field is a plain string).
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

/** The whole seed: every list optional. */
export const emulatorSeedSchema = z.object({
  clients: z.array(clientSeedSchema).default([]),
  teams: z.array(teamSeedSchema).default([]),
  users: z.array(userSeedSchema).default([]),
  numbers: z.array(numberSeedSchema).default([]),
  chatParticipants: z.array(chatParticipantSeedSchema).default([]),
});
export type EmulatorSeed = z.input<typeof emulatorSeedSchema>;

// ---------------------------------------------------------------------------------------------
// Records

/** A stored client. */
export const clientRecordSchema = clientSeedSchema.extend({ id });
export type EmulatorClient = WithReadonly<z.output<typeof clientRecordSchema>, 'id' | 'clientRef'>;

/** A stored team. */
export const teamRecordSchema = teamSeedSchema.extend({ id, clientId: id });
export type EmulatorTeam = Readonly<z.output<typeof teamRecordSchema>>;

/** A stored user: the seed's fields, its id and its client's id. */
export const userRecordSchema = userSeedSchema.extend({ id, clientId: id });
/** A stored user. apiKey, email and deleted are indexed: change them with the state's methods. */
export type EmulatorUser = WithReadonly<
  z.output<typeof userRecordSchema>,
  'id' | 'clientId' | 'apiKey' | 'email' | 'deleted'
>;

/** A stored number: the client-number link and its nested messaging number. */
export const numberRecordSchema = z.object({
  /** Client-number link id. */
  id,
  clientId: id,
  messagingNumber: z.object({ id, number: id, messagingProvider: z.string() }),
  kind: z.enum(NUMBER_KINDS),
});
export type NumberRecord = z.output<typeof numberRecordSchema>;
export type EmulatorNumber = Readonly<Omit<NumberRecord, 'messagingNumber'>> & {
  readonly messagingNumber: Readonly<NumberRecord['messagingNumber']>;
};

/** A Lite number's session. */
export const sessionRecordSchema = z.object({
  statusType: z.enum(SESSION_STATUS_TYPES).nullable(),
  status: nullableString,
  /** Emulator time (Unix ms) until which the number cannot reconnect, or null. */
  flaggedUntil: emulatorTimeSchema.nullable(),
});
export type SessionState = z.output<typeof sessionRecordSchema>;

/** A stored webhook configuration: the documented row plus its client. */
export const webhookConfigRecordSchema = webhookConfigSchema.extend({ clientId: id });
export type StoredWebhookConfig = Readonly<z.output<typeof webhookConfigRecordSchema>>;

const templateSchema = z.object({ id, name: id });

/** A stored chat participant: the seed's fields plus what the emulator keeps of the conversation. */
export const chatParticipantRecordSchema = chatParticipantSeedSchema.extend({
  id,
  userId: id,
  clientId: id,
  /** Link id of the number. */
  numberId: id,
  fullName: z.string(),
  phoneNumber: z.string(),
  createdTime: z.string(),
  lastMessageTime: z.string(),
  customerLastMessageTime: nullableString,
  /** Conversation UUID carried as conversationId on incoming and status payloads. */
  conversationId: id,
  /** Conversation-engine participant UUID (participantId on incoming/status; not the chat id). */
  engineParticipantId: id,
  /** Template of the last outbound message, or null after a free-form one (templateId/templateName rule). */
  lastOutboundTemplate: templateSchema.nullable(),
});
/**
 * A stored chat participant. Its identity (id, client, number, customer) never changes;
 * conversationClosed and assignedTo are indexed (the open chat of a customer, the open chats of
 * an agent): change them with the state's methods.
 */
export type EmulatorChatParticipant = WithReadonly<
  z.output<typeof chatParticipantRecordSchema>,
  | 'id'
  | 'clientId'
  | 'clientRef'
  | 'numberId'
  | 'messagingClientNumber'
  | 'sender'
  | 'conversationClosed'
  | 'assignedTo'
>;

/**
 * What an agent message (Send an agent message, v2) carried and who sent it: its content and the
 * agent the API key resolved to. An outbound message made by a trigger has none.
 */
export const agentMessageRecordSchema = z.object({
  channel: z.enum(['MESSAGING', 'WEB', 'SOCIAL']),
  text: nullableString,
  mediaUrl: nullableString,
  caption: nullableString,
  /** The sending agent's user id and e-mail (resolved from the API key). */
  sentBy: id,
  sentByEmail: z.string(),
});
export type AgentMessageRecord = Readonly<z.output<typeof agentMessageRecordSchema>>;

/**
 * An outbound message and its delivery status (section States and transitions). It carries what
 * its status payloads say of the recipient, so it outlives its chat (see retention).
 */
export const outboundMessageRecordSchema = z.object({
  gstId: id,
  clientId: id,
  /** Link id of the sending number. */
  numberId: id,
  chatParticipantId: id,
  /** The customer's phone number (status payload `receiver`). */
  to: id,
  /** The customer's BSUID (`recipientUserId`). */
  recipientUserId: id,
  /** The chat's conversation UUID (`conversationId`). */
  conversationId: id,
  /** The chat's conversation-engine participant UUID (`participantId`). */
  participantId: id,
  voice: z.boolean(),
  template: templateSchema.nullable(),
  ctId: nullableString,
  conversationCtId: nullableString,
  status: z.enum(DELIVERY_STATUSES),
  sendTime: z.string(),
  deliveryTime: nullableString,
  readTime: nullableString,
  playedTime: nullableString,
  errorCode: nullableString,
  errorCodeString: nullableString,
  /** Sent by an agent (or a bot) with Send an agent message (v2): its content; else absent. */
  agentMessage: agentMessageRecordSchema.nullish(),
});
export type OutboundMessage = WithReadonly<
  z.output<typeof outboundMessageRecordSchema>,
  | 'gstId'
  | 'clientId'
  | 'numberId'
  | 'chatParticipantId'
  | 'to'
  | 'recipientUserId'
  | 'conversationId'
  | 'participantId'
  | 'voice'
  | 'template'
  | 'ctId'
  | 'conversationCtId'
  | 'agentMessage'
> & { status: DeliveryStatus };

/**
 * A file uploaded with Upload media for an agent message (v2), served at its mediaUrl. Its bytes
 * are kept base64-encoded, as a snapshot lists them.
 */
export const mediaRecordSchema = z.object({
  id,
  clientId: id,
  fileName: id,
  contentType: id,
  /** The bytes, base64. */
  data: z.string(),
  /** The number of bytes. */
  size: z.number().int().nonnegative(),
  /** The uploading user's id. */
  uploadedBy: id,
  /** ISO 8601, emulator clock. */
  createdTime: z.string(),
});
export type MediaRecord = Readonly<z.output<typeof mediaRecordSchema>>;

/**
 * A rating widget the platform would send to the customer: recorded when a chat is terminated
 * with sendRatingWidget true (Chat participant closure; merge rule 5).
 */
export const ratingWidgetRecordSchema = z.object({
  id,
  chatParticipantId: id,
  /** The agent being rated: lastAssignedAgent after the move (user id), or null. */
  agentId: nullableString,
  /** E-mail of the user whose API key terminated the chat. */
  triggeredBy: z.string(),
  /** The operation that terminated the chat. */
  operation: z.enum(['terminateChatParticipantChat', 'terminateV2']),
  /** ISO 8601, emulator clock. */
  time: z.string(),
});
export type RatingWidgetTrigger = Readonly<z.output<typeof ratingWidgetRecordSchema>>;
