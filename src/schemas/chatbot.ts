import * as z from 'zod';
import { identifier, optionalBoolean, optionalMillis, optionalString } from './fields.js';
import { openEnum } from './open-enum.js';
import { openDiscriminatedUnion, passthroughObject, unlistedValue } from './open-union.js';

export const CHATBOT_DIRECTIONS = ['INCOMING', 'OUTGOING'] as const;
export type ChatbotDirection = (typeof CHATBOT_DIRECTIONS)[number];

/** messageType values of the chatbot payload (INCOMING values, plus Combined for OUTGOING). */
export const CHATBOT_MESSAGE_TYPES = [
  'TEXT',
  'LOCATION',
  'MEDIA',
  'BUTTON',
  'ALL',
  'INTERACTIVE',
  'REACTION',
  'CAROUSEL',
  'USER_ACTION',
  'CONTACT',
  'Combined',
] as const;

export const CHATBOT_PAYLOAD_VERSIONS = ['v1', 'v2'] as const;
export type ChatbotPayloadVersion = (typeof CHATBOT_PAYLOAD_VERSIONS)[number];

const chatbotV1Shape = {
  /** Unique event id (UUID); the deduplication key. */
  eventId: identifier,
  /** Unix time in milliseconds. */
  timestamp: optionalMillis,
  chatParticipantId: identifier,
  conversationStatus: optionalString,
  conversationClosed: optionalBoolean,
  conversationMissed: optionalBoolean,
  chatBotConversation: optionalBoolean,
  assignedAgentId: optionalString,
  assignedAgentName: optionalString,
  lastAssignedAgentId: optionalString,
  lastAssignedAgentName: optionalString,
  clientRef: optionalString,
  senderMsisdn: optionalString,
  receiverMsisdn: optionalString,
  messageId: optionalString,
  ctId: optionalString,
  messageType: openEnum(CHATBOT_MESSAGE_TYPES).nullish(),
  /** For OUTGOING Combined: a JSON-serialised list of widgets. */
  messageText: optionalString,
  mediaUrl: optionalString,
  templateId: optionalString,
  templateName: optionalString,
};

/** The fields payload version v2 adds to v1. */
export const CHATBOT_V2_FIELDS = [
  'teamId',
  'teamName',
  'routedToAnotherTeam',
  'quotedMessageId',
  'quotedText',
  'senderUserId',
  'recipientUserId',
  'username',
] as const;

const chatbotV2Shape = {
  ...chatbotV1Shape,
  teamId: optionalString,
  teamName: optionalString,
  routedToAnotherTeam: optionalBoolean,
  quotedMessageId: optionalString,
  quotedText: optionalString,
  senderUserId: optionalString,
  recipientUserId: optionalString,
  username: optionalString,
} satisfies Record<(typeof CHATBOT_V2_FIELDS)[number], z.ZodType> & z.ZodRawShape;

/** The customer BSUID on a v2 event: "always present there" (section Events, v2 table). */
const bsuid = (direction: ChatbotDirection) =>
  z.string({ error: `Required on ${direction} v2 chatbot events (the customer BSUID)` });

/** v1 chatbot events by direction (payload version v1, omitted or null). */
export const chatbotV1IncomingSchema = passthroughObject({
  ...chatbotV1Shape,
  direction: z.literal('INCOMING'),
});
export const chatbotV1OutgoingSchema = passthroughObject({
  ...chatbotV1Shape,
  direction: z.literal('OUTGOING'),
});
/** A v1 chatbot event whose direction the documentation does not list. */
export const chatbotV1UnlistedSchema = passthroughObject({
  ...chatbotV1Shape,
  direction: unlistedValue(CHATBOT_DIRECTIONS),
});

/**
 * v2 chatbot events by direction: a strict superset of v1. The customer BSUID is always present:
 * senderUserId on INCOMING, recipientUserId on OUTGOING.
 */
export const chatbotV2IncomingSchema = passthroughObject({
  ...chatbotV2Shape,
  direction: z.literal('INCOMING'),
  senderUserId: bsuid('INCOMING'),
});
export const chatbotV2OutgoingSchema = passthroughObject({
  ...chatbotV2Shape,
  direction: z.literal('OUTGOING'),
  recipientUserId: bsuid('OUTGOING'),
});
/** A v2 chatbot event whose direction the documentation does not list (no BSUID rule applies). */
export const chatbotV2UnlistedSchema = passthroughObject({
  ...chatbotV2Shape,
  direction: unlistedValue(CHATBOT_DIRECTIONS),
});

export const chatbotEventV1 = openDiscriminatedUnion(
  'direction',
  [chatbotV1IncomingSchema, chatbotV1OutgoingSchema],
  chatbotV1UnlistedSchema,
);
export const chatbotEventV2 = openDiscriminatedUnion(
  'direction',
  [chatbotV2IncomingSchema, chatbotV2OutgoingSchema],
  chatbotV2UnlistedSchema,
);
/** Schema of the v1 chatbot payload (chatbotWebhookURL; chatbotPayloadVersion v1, omitted or null). */
export const chatbotEventV1Schema = chatbotEventV1.schema;
/** Schema of the v2 chatbot payload: v1 plus team, quote and BSUID fields. */
export const chatbotEventV2Schema = chatbotEventV2.schema;

/* eslint-disable @typescript-eslint/no-empty-object-type -- an interface over each inferred type names it in hovers and errors (it cannot drift: it is the schema's type) */
/** A v1 chatbot event from the customer (`direction: 'INCOMING'`). */
export interface ChatbotIncomingEventV1 extends z.infer<typeof chatbotV1IncomingSchema> {}
/** A v1 chatbot event from the bot or an agent (`direction: 'OUTGOING'`). */
export interface ChatbotOutgoingEventV1 extends z.infer<typeof chatbotV1OutgoingSchema> {}
/** A v1 chatbot event whose direction the documentation does not list. */
export interface UnlistedChatbotEventV1 extends z.infer<typeof chatbotV1UnlistedSchema> {}
/** A v2 chatbot event from the customer: `senderUserId` (BSUID) is set. */
export interface ChatbotIncomingEventV2 extends z.infer<typeof chatbotV2IncomingSchema> {}
/** A v2 chatbot event from the bot or an agent: `recipientUserId` (BSUID) is set. */
export interface ChatbotOutgoingEventV2 extends z.infer<typeof chatbotV2OutgoingSchema> {}
/** A v2 chatbot event whose direction the documentation does not list. */
export interface UnlistedChatbotEventV2 extends z.infer<typeof chatbotV2UnlistedSchema> {}
/* eslint-enable @typescript-eslint/no-empty-object-type */
/** A v1 chatbot event (chatbotPayloadVersion v1, omitted or null): narrow on `direction`. */
export type ChatbotEventV1 = ChatbotIncomingEventV1 | ChatbotOutgoingEventV1 | UnlistedChatbotEventV1;
/** A v2 chatbot event: narrow on `direction`. */
export type ChatbotEventV2 = ChatbotIncomingEventV2 | ChatbotOutgoingEventV2 | UnlistedChatbotEventV2;
/** A chatbot event whose direction the documentation does not list, of either payload version. */
export type UnlistedChatbotEvent = UnlistedChatbotEventV1 | UnlistedChatbotEventV2;
/** A chatbot event of either payload version; `ctx.payloadVersion` or {@link isChatbotV2} tells which. */
export type ChatbotEvent = ChatbotEventV1 | ChatbotEventV2;

/**
 * Tells the payload version from the payload alone: v2 when any field that only v2 carries is
 * present. The platform does not label the version; a receiver that knows its configuration
 * can pass it instead (router option `chatbotPayloadVersion`).
 */
export function detectChatbotPayloadVersion(
  payload: Readonly<Record<string, unknown>>,
): ChatbotPayloadVersion {
  return CHATBOT_V2_FIELDS.some((field) => payload[field] !== undefined) ? 'v2' : 'v1';
}

/** Narrows a chatbot event to the v2 payload. */
export function isChatbotV2(event: ChatbotEvent): event is ChatbotEventV2 {
  return detectChatbotPayloadVersion(event) === 'v2';
}
