import { newId } from '../ids.js';
import type { ChatbotDirection, ChatbotPayloadVersion, MessageContentType } from '../../schemas/index.js';
import type {
  EmulatorChatParticipant,
  EmulatorNumber,
  EmulatorState,
  OutboundMessage,
} from '../state/index.js';
import { userDisplayName } from '../state/index.js';

/** A JSON payload about to be emitted. */
export type Payload = Record<string, unknown>;

/**
 * Drops null and undefined fields: "null fields are omitted from event payloads unless stated
 * otherwise" (section Events).
 */
function compact(fields: Readonly<Record<string, unknown>>, out: Payload = {}): Payload {
  // for...in over a fresh literal: no [key, value] pair per field (Object.entries), fan-out's hot path
  for (const key in fields) if (fields[key] !== null && fields[key] !== undefined) out[key] = fields[key];
  return out;
}

/** The content-specific fields of a customer message. */
export interface IncomingContent {
  readonly messageContentType: MessageContentType;
  readonly text?: string | null | undefined;
  readonly buttonText?: string | undefined;
  readonly buttonPayload?: string | undefined;
  readonly latitude?: string | undefined;
  readonly longitude?: string | undefined;
  readonly label?: string | undefined;
  readonly address?: string | undefined;
  readonly mediaUrl?: string | undefined;
  readonly caption?: string | undefined;
  readonly fileExtension?: string | undefined;
  /** REACTION: the reacted-to message; otherwise the message's own tracking id. */
  readonly gstId: string;
}

/** Everything the incoming message payload is built from. */
export interface IncomingPayloadInput {
  readonly participant: EmulatorChatParticipant;
  readonly content: IncomingContent;
  readonly profileName: string | null;
  readonly messageType: string;
  readonly ctId: string | null;
  readonly bodyParameters: Readonly<Record<string, string>> | null;
  readonly sentTime: string;
}

/** Sets `key` when `value` is neither null nor undefined (null fields are omitted). */
function put(payload: Payload, key: string, value: unknown): void {
  if (value !== null && value !== undefined) payload[key] = value;
}

/**
 * The incoming message payload (incomingMessageURL). Written field by field, in the order of
 * the documentation's table, rather than through compact(): every customer message makes one,
 * even with no URL configured (the trigger returns it).
 */
export function buildIncomingPayload(input: IncomingPayloadInput): Payload {
  const { participant, content } = input;
  const template = participant.lastOutboundTemplate;
  const payload: Payload = {};
  put(payload, 'profileName', input.profileName);
  payload.sender = participant.sender;
  // the BSUID is always present on incoming events
  payload.senderUserId = participant.userId;
  put(payload, 'username', participant.username);
  payload.receiver = participant.messagingClientNumber;
  put(payload, 'text', content.text);
  put(payload, 'buttonText', content.buttonText);
  put(payload, 'buttonPayload', content.buttonPayload);
  put(payload, 'latitude', content.latitude);
  put(payload, 'longitude', content.longitude);
  put(payload, 'label', content.label);
  put(payload, 'address', content.address);
  put(payload, 'mediaUrl', content.mediaUrl);
  put(payload, 'caption', content.caption);
  put(payload, 'fileExtension', content.fileExtension);
  payload.messageType = input.messageType;
  payload.messageContentType = content.messageContentType;
  payload.gstId = content.gstId;
  put(payload, 'ctId', input.ctId);
  payload.conversationId = participant.conversationId;
  payload.participantId = participant.engineParticipantId;
  payload.sentTime = input.sentTime;
  payload.status = 'RECEIVED';
  // a template response: same rule as the chatbot payload's templateId/templateName
  put(payload, 'templateId', template?.id);
  put(payload, 'templateName', template?.name);
  put(payload, 'bodyParameters', input.bodyParameters);
  payload.requestId = newId();
  // documented as "empty string when no error": an exception to null omission
  payload.errorCode = '';
  payload.errorCodeString = '';
  return payload;
}

/** The status update payload (statusUpdateURL) for an outbound message's current status. */
export function buildStatusPayload(number: EmulatorNumber, message: OutboundMessage): Payload {
  const failed = message.status === 'FAILED';
  return compact({
    sender: number.messagingNumber.number,
    receiver: message.to,
    recipientUserId: message.recipientUserId,
    gstId: message.gstId,
    ctId: message.ctId,
    conversationCtId: message.conversationCtId,
    status: message.status,
    sendTime: message.sendTime,
    deliveryTime: message.deliveryTime,
    readTime: message.readTime,
    playedTime: message.playedTime,
    errorCode: failed ? message.errorCode : null,
    errorCodeString: failed ? message.errorCodeString : null,
    conversationId: message.conversationId,
    participantId: message.participantId,
  });
}

/** A chatbot event's own fields (the participant supplies the rest). */
export interface ChatbotEventInput {
  readonly direction: ChatbotDirection;
  readonly version: ChatbotPayloadVersion;
  readonly participant: EmulatorChatParticipant;
  readonly timestamp: number;
  readonly messageId: string;
  readonly messageType: string;
  readonly messageText?: string | null | undefined;
  readonly mediaUrl?: string | null | undefined;
  readonly ctId?: string | null | undefined;
  /** v2, INCOMING replies only. */
  readonly quotedMessageId?: string | null | undefined;
  readonly quotedText?: string | null | undefined;
  /** v2, assignment events only. */
  readonly routedToAnotherTeam?: boolean | undefined;
}

/**
 * The chatbot conversation payload (chatbotWebhookURL), v1 or v2. No nested objects and no
 * credentials; eventId is a fresh UUID per event.
 */
export function buildChatbotPayload(state: EmulatorState, input: ChatbotEventInput): Payload {
  const { participant, direction } = input;
  const assigned = participant.assignedTo === null ? undefined : state.users.get(participant.assignedTo);
  const last =
    participant.lastAssignedAgent === null ? undefined : state.users.get(participant.lastAssignedAgent);
  const incoming = direction === 'INCOMING';
  const template = incoming ? participant.lastOutboundTemplate : null;
  const v1 = compact({
    eventId: newId(),
    direction,
    timestamp: input.timestamp,
    chatParticipantId: participant.id,
    conversationStatus: participant.conversationStatus,
    conversationClosed: participant.conversationClosed,
    conversationMissed: participant.missedConversation,
    chatBotConversation: participant.chatBotConversation,
    assignedAgentId: assigned?.id,
    assignedAgentName: assigned === undefined ? undefined : userDisplayName(assigned),
    lastAssignedAgentId: last?.id,
    lastAssignedAgentName: last === undefined ? undefined : userDisplayName(last),
    clientRef: participant.clientRef,
    senderMsisdn: incoming ? participant.sender : participant.messagingClientNumber,
    receiverMsisdn: incoming ? participant.messagingClientNumber : participant.sender,
    messageId: input.messageId,
    ctId: input.ctId,
    messageType: input.messageType,
    messageText: input.messageText === '' ? null : input.messageText,
    mediaUrl: input.mediaUrl,
    // only when the last outbound message to the participant was a template
    templateId: template?.id,
    templateName: template?.name,
  });
  if (input.version === 'v1') return v1;
  const team = participant.team === null ? undefined : state.teams.get(participant.team);
  return compact(
    {
      teamId: team?.id,
      teamName: team?.name,
      routedToAnotherTeam: input.routedToAnotherTeam,
      quotedMessageId: incoming ? input.quotedMessageId : null,
      quotedText: incoming ? input.quotedText : null,
      // the customer BSUID: always present in v2
      senderUserId: incoming ? participant.userId : null,
      recipientUserId: incoming ? null : participant.userId,
      username: participant.username,
    },
    v1,
  );
}

/** The session status payload (sessionStatusURL). */
export function buildSessionPayload(
  msisdn: string,
  status: string,
  statusType: string,
  timestamp: number,
): Payload {
  return { messagingNumber: msisdn, status, statusType, timestamp };
}
