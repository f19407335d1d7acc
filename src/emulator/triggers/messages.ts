import { newId } from '../ids.js';
import { z } from 'zod';
import {
  CHATBOT_MESSAGE_TYPES,
  DELIVERY_STATUSES,
  DELIVERY_TRANSITIONS,
  findDeliveryTransition,
  INCOMING_MESSAGE_TYPES,
  MESSAGE_CONTENT_TYPES,
} from '../../schemas/index.js';
import { documentedUuidSchema, e164PhoneSchema } from '../../schemas/trigger-contract.js';
import { BadRequestError, IllegalTransitionError, NotFoundError } from '../errors.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import { buildIncomingPayload, type IncomingContent, type Payload } from '../emit/payloads.js';
import { parseBody } from '../http/validate.js';
import { applyDeliveryTransition, newOutboundMessage, type OutboundMessage } from '../state/index.js';
import { faults, ref, undocumented, type TriggerContext } from './common.js';
import { defined } from '../emit/chat-events.js';
import {
  assertMessagingPossible,
  numberOf,
  numberOfParticipant,
  participantFor,
  participantOf,
} from './lookups.js';

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
/** Result of {@link Triggers.sendMessage} and {@link Triggers.updateMessageStatus}. */
export interface MessageResult {
  readonly message: Readonly<OutboundMessage>;
  readonly chatParticipantId: string;
  readonly deliveries: readonly DeliveryLogEntry[];
  readonly payload: Payload;
}

/** The message triggers: a customer's message, a bot's reply, an outbound message and its receipts. */
export function messageTriggers({ state, emitter, events }: TriggerContext) {
  const { iso, emitChatbot, statusEmission } = events;
  return {
    customerMessage(raw: unknown): CustomerMessageResult {
      const input = parseTrigger(documentedCustomerMessageSchema, customerMessageInputSchema, raw);
      const number = numberOf(state, input.number, 'number');
      assertMessagingPossible(state, number);
      const participant = participantFor(state, number, input.from, iso(), input.userId);
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

    botReply(raw: unknown): BotReplyResult {
      const input = parseTrigger(documentedBotReplySchema, botReplyInputSchema, raw);
      const participant = participantOf(state, input.chatParticipantId);
      const number = numberOfParticipant(state, participant);
      assertMessagingPossible(state, number);
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

    sendMessage(raw: unknown): MessageResult {
      const input = parseTrigger(documentedSendMessageSchema, sendMessageInputSchema, raw);
      const number = numberOf(state, input.number, 'number');
      assertMessagingPossible(state, number);
      const participant = participantFor(state, number, input.to, iso());
      const template =
        input.template === undefined ? null : { id: input.template.id ?? newId(), name: input.template.name };
      participant.lastOutboundTemplate = template;
      const sendTime = iso();
      participant.lastMessageTime = sendTime;
      const message = newOutboundMessage(number, participant, sendTime, {
        gstId: newId(),
        voice: input.voice,
        template,
        ctId: input.ctId ?? null,
        conversationCtId: input.conversationCtId ?? null,
      });
      state.addMessage(message);
      return statusEmission(message, input);
    },

    updateMessageStatus(raw: unknown): MessageResult {
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
      applyDeliveryTransition(message, transition, iso(), input);
      return statusEmission(message, input);
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
