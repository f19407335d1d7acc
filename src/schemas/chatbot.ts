import { z } from 'zod';
import { identifier, optionalBoolean, optionalMillis, optionalString } from './fields.js';
import { openEnum } from './open-enum.js';

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
  direction: openEnum(CHATBOT_DIRECTIONS),
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

/** Schema of the v1 chatbot payload (chatbotWebhookURL; chatbotPayloadVersion v1, omitted or null). */
export const chatbotEventV1Schema = z.looseObject(chatbotV1Shape);

/**
 * Schema of the v2 chatbot payload: a strict superset of v1. The customer BSUID is always
 * present: senderUserId on INCOMING, recipientUserId on OUTGOING.
 */
export const chatbotEventV2Schema = z.looseObject(chatbotV2Shape).superRefine((event, ctx) => {
  const bsuidField =
    event.direction === 'INCOMING'
      ? 'senderUserId'
      : event.direction === 'OUTGOING'
        ? 'recipientUserId'
        : null;
  if (bsuidField !== null && typeof event[bsuidField] !== 'string') {
    ctx.addIssue({
      code: 'custom',
      path: [bsuidField],
      message: `Required on ${event.direction} v2 chatbot events (the customer BSUID)`,
    });
  }
});

export type ChatbotEventV1 = z.infer<typeof chatbotEventV1Schema>;
export type ChatbotEventV2 = z.infer<typeof chatbotEventV2Schema>;
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
