import { newId } from './ids.js';
import { z } from 'zod';
import {
  CHATBOT_MESSAGE_TYPES,
  DELIVERY_STATUSES,
  INCOMING_MESSAGE_TYPES,
  PARTNER_EVENT_TYPES,
  DELIVERY_TRANSITIONS,
  findDeliveryTransition,
  MESSAGE_CONTENT_TYPES,
  SESSION_STATUS_STRINGS,
  SESSION_STATUS_TYPE_OF,
  SESSION_STATUS_TYPES,
  type PartnerEventType,
  type SessionStatusString,
  type SessionStatusType,
} from '../schemas/index.js';
import { documentedUuidSchema, e164PhoneSchema, PARTNER_EVENT_FIELDS } from '../schemas/trigger-contract.js';
import { assignAgent, unassignAgent, type AssignmentOutcome } from './agents.js';
import { MAX_EMULATOR_TIME, type EmulatorClock } from './clock.js';
import {
  BadRequestError,
  ConflictError,
  InternalError,
  IllegalTransitionError,
  NotFoundError,
  NumberFlaggedError,
  SessionNotSupportedError,
} from './errors.js';
import type { DeliveryLogEntry } from './emit/delivery.js';
import { createChatEvents, type ChatEvents } from './emit/chat-events.js';
import type { Emitter } from './emit/emitter.js';
import { faultSchema } from './emit/faults.js';
import {
  buildIncomingPayload,
  buildSessionPayload,
  type IncomingContent,
  type Payload,
} from './emit/payloads.js';
import { parseBody } from './http/validate.js';
import {
  findNumber,
  newChatParticipant,
  type EmulatorChatParticipant,
  type EmulatorNumber,
  type EmulatorState,
  type OutboundMessage,
  type SessionState,
  userDisplayName,
} from './state/index.js';

/** The longest documented flag period: "up to 24 hours". */
export const MAX_FLAG_PERIOD_MS = 24 * 60 * 60 * 1000;

const ref = z.string().min(1);
const faults = z.array(faultSchema).default([]);
/**
 * Drift simulation, on purpose: `true` skips the documented enums, value sets and formats so a
 * test can send an unlisted value to check its receiver's tolerance. The delivery log marks
 * such deliveries (`undocumented: true`). Never part of the payload. @default false
 */
const undocumented = z.boolean().default(false);

/** Input of {@link Triggers.customerMessage}: a customer sends a message to one of your numbers. */
export const customerMessageInputSchema = z.object({
  /** Your number: msisdn, client-number link id or nested messaging number id. */
  number: ref,
  /** The customer's phone number (E.164). */
  from: ref,
  /** @default 'TEXT' */
  contentType: z.enum(MESSAGE_CONTENT_TYPES).default('TEXT'),
  /** TEXT text; REACTION emoji ('' removes the reaction); CONTACT: overrides `contact`. */
  text: z.string().nullish(),
  profileName: z.string().nullish(),
  /** Customer's username; applies to the chat participant. */
  username: z.string().nullish(),
  /** Customer's BSUID for a new chat participant. @default derived from the phone number */
  userId: ref.optional(),
  /** MEDIA. @default 'https://media.emulator.invalid/image.jpg' */
  mediaUrl: z.string().optional(),
  caption: z.string().optional(),
  /** MEDIA. @default 'jpg' */
  fileExtension: z.string().optional(),
  /** LOCATION. @default '-33.9249' / '18.4241' */
  latitude: z.string().optional(),
  longitude: z.string().optional(),
  label: z.string().optional(),
  address: z.string().optional(),
  /** BUTTON, INTERACTIVE, CAROUSEL. @default 'Yes' / 'YES' */
  buttonText: z.string().optional(),
  buttonPayload: z.string().optional(),
  /** CONTACT card: becomes text 'Contact: <name>, Phone: <phone>'. */
  contact: z.object({ name: z.string(), phone: z.string() }).optional(),
  /** REACTION: gstId of the reacted-to message (required for REACTION). */
  reactedToGstId: ref.optional(),
  /** INTERACTION or CONVERSATION (the billing model). @default 'CONVERSATION' */
  messageType: z.string().default('CONVERSATION'),
  ctId: z.string().optional(),
  bodyParameters: z.record(z.string(), z.string()).optional(),
  /** v2 chatbot payload: the quoted message of a reply. */
  quotedMessageId: z.string().optional(),
  quotedText: z.string().optional(),
  faults,
  undocumented,
});
export type CustomerMessageInput = z.input<typeof customerMessageInputSchema>;
/** {@link customerMessageInputSchema} within the documented contract (without `undocumented`). */
const documentedCustomerMessageSchema = customerMessageInputSchema.extend({
  from: e164PhoneSchema,
  messageType: z.enum(INCOMING_MESSAGE_TYPES).default('CONVERSATION'),
});

/** Input of {@link Triggers.botReply}: the bot answers in a chat. */
export const botReplyInputSchema = z.object({
  chatParticipantId: ref,
  /** A single widget type, or 'Combined' when `widgets` is given. @default 'TEXT' */
  messageType: z.string().optional(),
  messageText: z.string().optional(),
  mediaUrl: z.string().optional(),
  /** A multi-widget reply: sent as messageType Combined with messageText the JSON list. */
  widgets: z.array(z.unknown()).optional(),
  faults,
  undocumented,
});
export type BotReplyInput = z.input<typeof botReplyInputSchema>;
const documentedBotReplySchema = botReplyInputSchema.extend({
  messageType: z.enum(CHATBOT_MESSAGE_TYPES).optional(),
});

/** Input of {@link Triggers.assignAgent}. */
export const assignAgentInputSchema = z.object({
  chatParticipantId: ref,
  /** The agent; omitted: the available agent with the fewest open chats. */
  userId: ref.optional(),
  /** Route the chat to this team first. */
  teamId: ref.optional(),
  /**
   * Emit a chatbot assignment event (OUTGOING, messageType USER_ACTION, messageText the
   * assignment message; v2 adds routedToAnotherTeam), subject to the flags. @default false
   */
  notify: z.boolean().default(false),
  faults,
});
export type AssignAgentInput = z.input<typeof assignAgentInputSchema>;

/** Input of {@link Triggers.unassignAgent}. */
export const unassignAgentInputSchema = z.object({ chatParticipantId: ref });
export type UnassignAgentInput = z.input<typeof unassignAgentInputSchema>;

/** Input of {@link Triggers.sendMessage}: you send a message to a customer (it starts ACCEPTED). */
export const sendMessageInputSchema = z.object({
  number: ref,
  to: ref,
  /** A template send: later INCOMING chatbot/incoming payloads carry templateId/templateName. */
  template: z.object({ id: ref.optional(), name: ref }).optional(),
  /** A voice note: only voice messages may reach PLAYED. @default false */
  voice: z.boolean().default(false),
  ctId: z.string().optional(),
  conversationCtId: z.string().optional(),
  faults,
  undocumented,
});
export type SendMessageInput = z.input<typeof sendMessageInputSchema>;
const documentedSendMessageSchema = sendMessageInputSchema.extend({
  to: e164PhoneSchema,
  /** templateId is documented as a UUID (chatbot payload). */
  template: z.object({ id: documentedUuidSchema.optional(), name: ref }).optional(),
});

/** Input of {@link Triggers.updateMessageStatus}: the next delivery status of an outbound message. */
export const messageStatusInputSchema = z.object({
  gstId: ref,
  status: z.enum(DELIVERY_STATUSES),
  /** FAILED only. @default '1000' (codes are not shown in the documentation) */
  errorCode: z.string().regex(/^\d+$/, 'Expected a numeric string').optional(),
  /** FAILED only. @default 'Message failed to send' */
  errorCodeString: z.string().optional(),
  faults,
});
export type MessageStatusInput = z.input<typeof messageStatusInputSchema>;

/** Input of {@link Triggers.sessionChange}: a Lite number's session changes. */
export const sessionChangeInputSchema = z
  .object({
    number: ref,
    /** A documented status string; its statusType follows from the session status table. */
    status: z.enum(SESSION_STATUS_STRINGS).optional(),
    /** Alternatively a statusType alone; the status string is the canonical one for it. */
    statusType: z.enum(SESSION_STATUS_TYPES).optional(),
    faults,
  })
  .refine((input) => input.status !== undefined || input.statusType !== undefined, {
    message: 'Give status (a documented status string) or statusType',
    path: ['status'],
  });
export type SessionChangeInput = z.input<typeof sessionChangeInputSchema>;

/** Input of {@link Triggers.flagNumber}: the number violated the provider's terms. */
export const flagNumberInputSchema = z.object({
  number: ref,
  /** Flag period on the emulator clock, at most 24 hours. @default 24 h */
  durationMs: z.number().int().min(1).max(MAX_FLAG_PERIOD_MS).default(MAX_FLAG_PERIOD_MS),
  faults,
});
export type FlagNumberInput = z.input<typeof flagNumberInputSchema>;

/**
 * Input of {@link Triggers.partnerEvent}: a partner event with the fields documented for its
 * eventType ({@link PARTNER_EVENT_FIELDS}); anything else needs `undocumented: true`.
 */
export const partnerEventInputSchema = z.looseObject({
  eventType: ref,
  /** Your number (msisdn, link id or nested id); the payload carries the msisdn. */
  messagingNumber: ref,
  /** Unix ms (a time a Date holds). @default the emulator clock */
  timestamp: z.number().int().nonnegative().max(MAX_EMULATOR_TIME).optional(),
  faults,
  undocumented,
});
export type PartnerEventInput = z.input<typeof partnerEventInputSchema>;

export { PARTNER_EVENT_FIELDS };

const PARTNER_COMMON_KEYS = new Set(Object.keys(partnerEventInputSchema.shape));

/** The documented fields of a partner event, or a 400 naming the first field outside them. */
function documentedPartnerFields(eventType: string, raw: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(PARTNER_EVENT_FIELDS, eventType)) {
    throw new BadRequestError(
      `eventType: expected one of ${PARTNER_EVENT_TYPES.join(', ')}, got ${JSON.stringify(eventType)} (undocumented: true sends it anyway)`,
      { field: 'eventType' },
    );
  }
  const shape: z.ZodRawShape = PARTNER_EVENT_FIELDS[eventType as PartnerEventType];
  const extra = Object.keys(raw).find((key) => !PARTNER_COMMON_KEYS.has(key) && !Object.hasOwn(shape, key));
  if (extra !== undefined) {
    throw new BadRequestError(
      `${extra}: not a field of ${eventType} events (its fields: ${Object.keys(shape).join(', ')})`,
      { field: extra },
    );
  }
  const fields: Record<string, unknown> = parseBody(z.object(shape), raw);
  if (fields.rejectedReason !== undefined && fields.templateStatus !== 'REJECTED') {
    throw new BadRequestError('rejectedReason: only when templateStatus is REJECTED', {
      field: 'rejectedReason',
    });
  }
  return fields;
}

/**
 * Parses trigger input against the documented contract, or, with `undocumented: true`, against
 * the lax schema only (drift simulation).
 */
function parseTrigger<L extends z.ZodType<{ undocumented: boolean }>>(
  documented: z.ZodType<z.output<L>>,
  lax: L,
  raw: unknown,
): z.output<L> {
  const optedOut =
    typeof raw === 'object' && raw !== null && (raw as { undocumented?: unknown }).undocumented === true;
  return parseBody(optedOut ? lax : documented, raw);
}

/** The canonical status string per statusType, when only a statusType is given. */
const CANONICAL_SESSION_STATUS: Readonly<Record<SessionStatusType, SessionStatusString>> = {
  connecting: 'Connecting...',
  success: 'Sync Complete. You can now send messages',
  disconnected: 'Disconnected',
};

/** Result of {@link Triggers.customerMessage}. */
export interface CustomerMessageResult {
  readonly chatParticipantId: string;
  /** The incoming message's gstId (the reacted-to one for REACTION). */
  readonly gstId: string;
  /** Deliveries made, in order: incoming first, then chatbot. */
  readonly deliveries: readonly DeliveryLogEntry[];
  readonly payloads: { readonly incoming: Payload; readonly chatbot?: Payload };
}
/** Result of {@link Triggers.botReply}. */
export interface BotReplyResult {
  readonly chatParticipantId: string;
  readonly deliveries: readonly DeliveryLogEntry[];
  /** The OUTGOING chatbot payload, when the flags let it through. */
  readonly payload?: Payload;
}
/** Result of {@link Triggers.assignAgent}: the outcome and the assignment event's delivery, if any. */
export interface AssignAgentResult extends AssignmentOutcome {
  readonly deliveries: readonly DeliveryLogEntry[];
}
/** Result of {@link Triggers.sendMessage} and {@link Triggers.updateMessageStatus}. */
export interface MessageResult {
  readonly message: Readonly<OutboundMessage>;
  readonly chatParticipantId: string;
  readonly deliveries: readonly DeliveryLogEntry[];
  readonly payload: Payload;
}
/** Result of {@link Triggers.sessionChange} and {@link Triggers.flagNumber}. */
export interface SessionResult {
  readonly number: string;
  readonly status: string;
  readonly statusType: SessionStatusType;
  readonly flaggedUntil: number | null;
  readonly deliveries: readonly DeliveryLogEntry[];
}
/** Result of {@link Triggers.partnerEvent}. */
export interface PartnerEventResult {
  readonly deliveries: readonly DeliveryLogEntry[];
  readonly payload: Payload;
}

/** Every trigger, callable from JS and over `/_emulator`. Inputs are validated (400 naming the field). */
export interface Triggers {
  customerMessage(input: CustomerMessageInput): CustomerMessageResult;
  botReply(input: BotReplyInput): BotReplyResult;
  assignAgent(input: AssignAgentInput): AssignAgentResult;
  unassignAgent(input: UnassignAgentInput): { readonly chatParticipantId: string };
  sendMessage(input: SendMessageInput): MessageResult;
  updateMessageStatus(input: MessageStatusInput): MessageResult;
  sessionChange(input: SessionChangeInput): SessionResult;
  flagNumber(input: FlagNumberInput): SessionResult;
  partnerEvent(input: PartnerEventInput): PartnerEventResult;
}

/**
 * The triggers as implemented: every input is `unknown` and validated, so HTTP bodies can be
 * passed as they arrive. Assignable to {@link Triggers}.
 */
export type UncheckedTriggers = {
  readonly [K in keyof Triggers]: (input: unknown) => ReturnType<Triggers[K]>;
};

function defined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/** Creates the triggers over the state, clock and emitter. */
export function createTriggers(
  state: EmulatorState,
  clock: EmulatorClock,
  emitter: Emitter,
  events: ChatEvents = createChatEvents(state, clock, emitter),
): UncheckedTriggers {
  const { iso, emitChatbot, statusEmission } = events;

  function numberOf(refValue: string, field: string): EmulatorNumber {
    const number = findNumber(state, refValue);
    if (number === undefined) throw new NotFoundError(`No number ${refValue} in the emulator`, { field });
    return number;
  }

  function participantOf(id: string): EmulatorChatParticipant {
    const participant = state.chatParticipants.get(id);
    if (participant === undefined) {
      throw new NotFoundError(`No chat participant ${id}`, { field: 'chatParticipantId' });
    }
    return participant;
  }

  function numberOfParticipant(participant: EmulatorChatParticipant): EmulatorNumber {
    const number = state.numbers.get(participant.numberId);
    if (number === undefined) throw new InternalError('Chat participant without a number');
    return number;
  }

  /** A disconnected Lite session stops all incoming and outgoing messaging. */
  function assertMessagingPossible(number: EmulatorNumber): void {
    if (state.sessions.get(number.id)?.statusType === 'disconnected') {
      throw new ConflictError(
        `Number ${number.messagingNumber.number} is disconnected: all messaging has stopped until it reconnects`,
      );
    }
  }

  /** The customer's open chat on the number, or a new one. */
  function participantFor(number: EmulatorNumber, sender: string, userId?: string): EmulatorChatParticipant {
    const open = state.openChat(number.id, sender);
    if (open !== undefined) return open;
    const seed = userId === undefined ? {} : { userId };
    const created = newChatParticipant(state, number, sender, iso(), seed);
    state.addChatParticipant(created);
    return created;
  }

  function liteSessionOf(number: EmulatorNumber): SessionState {
    const session = state.sessions.get(number.id);
    if (number.kind === 'lite' && session !== undefined) return session;
    throw new SessionNotSupportedError(
      `Number ${number.messagingNumber.number} is a Cloud number: only Lite numbers have sessions`,
    );
  }

  function changeSession(
    number: EmulatorNumber,
    status: SessionStatusString,
    faultList: z.output<typeof faults>,
  ): SessionResult {
    const session = liteSessionOf(number);
    const statusType: SessionStatusType = SESSION_STATUS_TYPE_OF[status];
    const now = clock.now();
    if (statusType !== 'disconnected' && session.flaggedUntil !== null && now < session.flaggedUntil) {
      throw new NumberFlaggedError(
        `Number ${number.messagingNumber.number} is flagged until ${new Date(session.flaggedUntil).toISOString()} and cannot reconnect`,
        { details: { flaggedUntil: session.flaggedUntil } },
      );
    }
    // session transition table: (start) -> connecting -> success | disconnected
    if (statusType === 'success' && session.statusType !== 'connecting') {
      throw new IllegalTransitionError(
        `Session of ${number.messagingNumber.number} cannot go from ${session.statusType ?? '(start)'} to success: success follows connecting`,
      );
    }
    if (statusType === 'disconnected' && session.statusType === null) {
      throw new IllegalTransitionError(
        `Session of ${number.messagingNumber.number} has not started: (start) goes to connecting`,
      );
    }
    session.statusType = statusType;
    session.status = status;
    const payload = buildSessionPayload(number.messagingNumber.number, status, statusType, now);
    const delivery = emitter.emit('session', number, payload, { faults: faultList });
    return {
      number: number.messagingNumber.number,
      status,
      statusType,
      flaggedUntil: session.flaggedUntil,
      deliveries: [delivery].filter(defined),
    };
  }

  return {
    customerMessage(raw) {
      const input = parseTrigger(documentedCustomerMessageSchema, customerMessageInputSchema, raw);
      const number = numberOf(input.number, 'number');
      assertMessagingPossible(number);
      const participant = participantFor(number, input.from, input.userId);
      if (input.username !== undefined) participant.username = input.username;
      const content = incomingContent(input);
      const sentTime = iso();
      // conversationStatus transitions are not shown: NEW until the customer's second message
      if (participant.customerLastMessageTime !== null) participant.conversationStatus = 'ACTIVE';
      participant.lastMessageTime = sentTime;
      participant.customerLastMessageTime = sentTime;
      participant.unread = true;
      const incoming = buildIncomingPayload({
        participant,
        content,
        profileName: input.profileName ?? (participant.fullName === '' ? null : participant.fullName),
        messageType: input.messageType,
        ctId: input.ctId ?? null,
        bodyParameters: input.bodyParameters ?? null,
        sentTime,
      });
      const deliveries = [
        emitter.emit('incoming', number, incoming, {
          faults: input.faults,
          undocumented: input.undocumented,
          conversation: participant.id,
        }),
      ];
      const chatbot = emitChatbot(number, participant, input, {
        direction: 'INCOMING',
        messageType: input.contentType,
        messageText: content.text,
        mediaUrl: content.mediaUrl,
        ctId: input.ctId,
        quotedMessageId: input.quotedMessageId,
        quotedText: input.quotedText,
      });
      deliveries.push(chatbot.delivery);
      return {
        chatParticipantId: participant.id,
        gstId: content.gstId,
        deliveries: deliveries.filter(defined),
        payloads: chatbot.payload === undefined ? { incoming } : { incoming, chatbot: chatbot.payload },
      };
    },

    botReply(raw) {
      const input = parseTrigger(documentedBotReplySchema, botReplyInputSchema, raw);
      const participant = participantOf(input.chatParticipantId);
      const number = numberOfParticipant(participant);
      assertMessagingPossible(number);
      const combined = input.widgets !== undefined;
      // the same answer as Send an agent message (v2), without its record and receipts
      const chatbot = events.answerInChat(
        number,
        participant,
        {
          messageType: input.messageType ?? (combined ? 'Combined' : 'TEXT'),
          messageText: combined ? JSON.stringify(input.widgets) : input.messageText,
          mediaUrl: input.mediaUrl,
        },
        input,
      );
      return {
        chatParticipantId: participant.id,
        deliveries: [chatbot.delivery].filter(defined),
        ...(chatbot.payload === undefined ? {} : { payload: chatbot.payload }),
      };
    },

    assignAgent(raw) {
      const input = parseBody(assignAgentInputSchema, raw);
      const participant = participantOf(input.chatParticipantId);
      const outcome = assignAgent(state, participant, { userId: input.userId, teamId: input.teamId });
      const deliveries: DeliveryLogEntry[] = [];
      const agent = outcome.agentId === null ? undefined : state.users.get(outcome.agentId);
      if (input.notify && agent !== undefined) {
        const number = numberOfParticipant(participant);
        const chatbot = emitChatbot(number, participant, input, {
          direction: 'OUTGOING',
          messageType: 'USER_ACTION',
          messageText: agent.assignmentMessage ?? `Assigned to ${userDisplayName(agent)}`,
          routedToAnotherTeam: outcome.routedToAnotherTeam,
        });
        if (chatbot.delivery !== undefined) deliveries.push(chatbot.delivery);
      }
      return { ...outcome, deliveries };
    },

    unassignAgent(raw) {
      const input = parseBody(unassignAgentInputSchema, raw);
      const participant = participantOf(input.chatParticipantId);
      unassignAgent(state, participant);
      return { chatParticipantId: participant.id };
    },

    sendMessage(raw) {
      const input = parseTrigger(documentedSendMessageSchema, sendMessageInputSchema, raw);
      const number = numberOf(input.number, 'number');
      assertMessagingPossible(number);
      const participant = participantFor(number, input.to);
      const template =
        input.template === undefined ? null : { id: input.template.id ?? newId(), name: input.template.name };
      participant.lastOutboundTemplate = template;
      const sendTime = iso();
      participant.lastMessageTime = sendTime;
      const message: OutboundMessage = {
        gstId: newId(),
        clientId: number.clientId,
        numberId: number.id,
        chatParticipantId: participant.id,
        to: participant.sender,
        recipientUserId: participant.userId,
        conversationId: participant.conversationId,
        participantId: participant.engineParticipantId,
        voice: input.voice,
        template,
        ctId: input.ctId ?? null,
        conversationCtId: input.conversationCtId ?? null,
        status: 'ACCEPTED',
        sendTime,
        deliveryTime: null,
        readTime: null,
        playedTime: null,
        errorCode: null,
        errorCodeString: null,
      };
      state.addMessage(message);
      return statusEmission(message, input);
    },

    updateMessageStatus(raw) {
      const input = parseBody(messageStatusInputSchema, raw);
      const message = state.messages.get(input.gstId);
      if (message === undefined)
        throw new NotFoundError(`No outbound message ${input.gstId}`, { field: 'gstId' });
      const transition = findDeliveryTransition(message.status, input.status);
      const allowed = DELIVERY_TRANSITIONS.filter(
        (t) => t.from === message.status && (t.voiceOnly !== true || message.voice),
      ).map((t) => t.to);
      if (transition === undefined || (transition.voiceOnly === true && !message.voice)) {
        throw new IllegalTransitionError(
          `Illegal delivery status transition ${message.status} -> ${input.status}` +
            (transition?.voiceOnly === true ? ' (PLAYED is for voice messages only)' : '') +
            `; allowed from ${message.status}: ${allowed.length === 0 ? 'none (terminal)' : allowed.join(', ')}`,
          { field: 'status', details: { from: message.status, to: input.status, allowed } },
        );
      }
      if (
        input.status !== 'FAILED' &&
        (input.errorCode !== undefined || input.errorCodeString !== undefined)
      ) {
        throw new BadRequestError('errorCode and errorCodeString are for FAILED only', {
          field: 'errorCode',
        });
      }
      const now = iso();
      message.status = input.status;
      for (const field of transition.sets) {
        if (field === 'deliveryTime') message.deliveryTime = now;
        else if (field === 'readTime') message.readTime = now;
        else if (field === 'playedTime') message.playedTime = now;
        else if (field === 'errorCode') message.errorCode = input.errorCode ?? '1000';
        else message.errorCodeString = input.errorCodeString ?? 'Message failed to send';
      }
      return statusEmission(message, input);
    },

    sessionChange(raw) {
      const input = parseBody(sessionChangeInputSchema, raw);
      const number = numberOf(input.number, 'number');
      const status = input.status ?? CANONICAL_SESSION_STATUS[input.statusType ?? 'connecting'];
      if (input.statusType !== undefined && SESSION_STATUS_TYPE_OF[status] !== input.statusType) {
        throw new BadRequestError(
          `status "${status}" is of statusType ${SESSION_STATUS_TYPE_OF[status]}, not ${input.statusType}`,
          { field: 'statusType' },
        );
      }
      return changeSession(number, status, input.faults);
    },

    flagNumber(raw) {
      const input = parseBody(flagNumberInputSchema, raw);
      const number = numberOf(input.number, 'number');
      const session = liteSessionOf(number);
      // within the times a Date holds, however late the clock is
      session.flaggedUntil = Math.min(clock.now() + input.durationMs, MAX_EMULATOR_TIME);
      if (session.statusType === null) {
        // nothing to disconnect: the flag alone stops it from connecting
        return {
          number: number.messagingNumber.number,
          status: 'No Session',
          statusType: 'disconnected',
          flaggedUntil: session.flaggedUntil,
          deliveries: [],
        };
      }
      return changeSession(number, 'Disconnected', input.faults);
    },

    partnerEvent(raw) {
      const input = parseBody(partnerEventInputSchema, raw);
      const {
        faults: faultList,
        messagingNumber,
        undocumented: drift,
        timestamp,
        eventType,
        ...rest
      } = input;
      const fields = drift ? rest : documentedPartnerFields(eventType, raw as Record<string, unknown>);
      const number = numberOf(messagingNumber, 'messagingNumber');
      const payload: Payload = {
        eventType,
        ...fields,
        messagingNumber: number.messagingNumber.number,
        timestamp: timestamp ?? clock.now(),
      };
      const delivery = emitter.emit('event', number, payload, { faults: faultList, undocumented: drift });
      return { deliveries: [delivery].filter(defined), payload };
    },
  };
}

/** The content fields of a customer message, with the documented key fields filled in. */
function incomingContent(input: z.output<typeof customerMessageInputSchema>): IncomingContent {
  const type = input.contentType;
  const content = { messageContentType: type, gstId: newId() };
  switch (type) {
    case 'TEXT':
      return { ...content, text: input.text ?? '' };
    case 'MEDIA':
      return {
        ...content,
        text: input.text,
        mediaUrl: input.mediaUrl ?? 'https://media.emulator.invalid/image.jpg',
        caption: input.caption,
        fileExtension: input.fileExtension ?? 'jpg',
      };
    case 'LOCATION':
      return {
        ...content,
        latitude: input.latitude ?? '-33.9249',
        longitude: input.longitude ?? '18.4241',
        label: input.label,
        address: input.address,
      };
    case 'BUTTON':
    case 'INTERACTIVE':
    case 'CAROUSEL':
      return {
        ...content,
        buttonText: input.buttonText ?? 'Yes',
        buttonPayload: input.buttonPayload ?? 'YES',
        text: input.text,
      };
    case 'CONTACT': {
      const text =
        input.text ??
        (input.contact === undefined
          ? undefined
          : `Contact: ${input.contact.name}, Phone: ${input.contact.phone}`);
      if (text === undefined || text === null) {
        throw new BadRequestError('CONTACT messages need contact {name, phone} or text', {
          field: 'contact',
        });
      }
      return { ...content, text };
    }
    case 'REACTION':
      if (input.reactedToGstId === undefined) {
        throw new BadRequestError('REACTION messages need reactedToGstId (the reacted-to message)', {
          field: 'reactedToGstId',
        });
      }
      // empty or null text means the reaction was removed
      return { ...content, gstId: input.reactedToGstId, text: input.text ?? '' };
  }
}
