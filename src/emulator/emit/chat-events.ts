import { newId } from '../ids.js';
import {
  chatbotPayloadVersionOf,
  findDeliveryTransition,
  shouldEmitChatbotEvent,
  type DeliveryStatus,
} from '../../schemas/index.js';
import type { EmulatorClock } from '../clock.js';
import { InternalError } from '../errors.js';
import {
  applyDeliveryTransition,
  newOutboundMessage,
  type AgentMessageRecord,
  type EmulatorChatParticipant,
  type EmulatorNumber,
  type EmulatorState,
  type OutboundMessage,
} from '../state/index.js';
import type { DeliveryLogEntry } from './delivery.js';
import type { Emitter } from './emitter.js';
import type { ResolvedFault } from './faults.js';
import { buildChatbotPayload, buildStatusPayload, type ChatbotEventInput, type Payload } from './payloads.js';

/*
 * The events a message in a chat causes, written once for every way one is sent: the control
 * route /_emulator/bot-reply (a trigger), Send an agent message (v2) (an operation), a customer's
 * message and the outbound messages of the triggers.
 */

/** What every emission carries from its cause: the faults and the drift opt-in. */
interface EmissionInput {
  readonly faults?: readonly ResolvedFault[];
  readonly undocumented?: boolean;
}

/** The result of a status emission: the message as it is now and the receipt's delivery. */
interface StatusEmission {
  readonly message: Readonly<OutboundMessage>;
  readonly chatParticipantId: string;
  readonly deliveries: readonly DeliveryLogEntry[];
  readonly payload: Payload;
}

/** What the business says in a chat: a bot's or an agent's message. */
interface BusinessMessage {
  /** The chatbot payload's messageType: TEXT, MEDIA, a widget type, `Combined`. */
  readonly messageType: string;
  /** The chatbot payload's messageId. @default a new id */
  readonly messageId?: string;
  readonly messageText?: string | null | undefined;
  readonly mediaUrl?: string | null | undefined;
}

/** The chat events of the emulator (see the module comment). */
export interface ChatEvents {
  /** The emulator clock as ISO 8601 (one text per clock value). */
  readonly iso: () => string;
  /** Emits a chatbot event (of the configured payload version) when the flags table lets it through. */
  readonly emitChatbot: (
    number: EmulatorNumber,
    participant: EmulatorChatParticipant,
    trigger: EmissionInput,
    fields: Omit<ChatbotEventInput, 'version' | 'participant' | 'timestamp' | 'messageId'> & {
      /** The payload's messageId. @default a new id */
      readonly messageId?: string;
    },
  ) => { delivery?: DeliveryLogEntry; payload?: Payload };
  /** The status receipt of a message: the message alone says who it went to (its chat may be gone). */
  readonly statusEmission: (message: OutboundMessage, trigger: EmissionInput) => StatusEmission;
  /**
   * The business answers in a chat (bot-reply, Send an agent message v2): a free-form session
   * message, so later INCOMING events carry no template fields; the chat's lastMessageTime moves;
   * an OUTGOING chatbot event is emitted where the configuration's flags ask for one.
   */
  answerInChat(
    number: EmulatorNumber,
    participant: EmulatorChatParticipant,
    message: BusinessMessage,
    trigger: EmissionInput,
  ): { delivery?: DeliveryLogEntry; payload?: Payload };
  /**
   * Send an agent message (v2) after its checks: answers in the chat ({@link answerInChat}),
   * records the message as an outbound message (ACCEPTED) carrying `content`, then moves it
   * through `receipts` (each a documented transition), emitting a status receipt for each.
   */
  sendAgentMessage(
    number: EmulatorNumber,
    participant: EmulatorChatParticipant,
    content: AgentMessageRecord,
    receipts: readonly DeliveryStatus[],
  ): {
    readonly message: Readonly<OutboundMessage>;
    readonly deliveries: readonly DeliveryLogEntry[];
  };
}

/** Whether a value is there (a filter for what an emission may leave out). */
export function defined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/**
 * Checks a receipt sequence: each status a documented transition from the one before, starting
 * at ACCEPTED (ACCEPTED → SENT → DELIVERED → READ; FAILED after SENT). Returns the first
 * problem, or undefined.
 */
export function receiptSequenceProblem(receipts: readonly DeliveryStatus[]): string | undefined {
  let from: DeliveryStatus = 'ACCEPTED';
  for (const to of receipts) {
    const transition = findDeliveryTransition(from, to);
    if (transition === undefined || transition.voiceOnly === true) {
      return `${from} -> ${to} is not a documented transition of a (non-voice) message`;
    }
    from = to;
  }
  return undefined;
}

/** Creates the chat events over the state, clock and emitter. */
export function createChatEvents(state: EmulatorState, clock: EmulatorClock, emitter: Emitter): ChatEvents {
  // the clock is manual: many events share one time, and its text is made once for them
  let lastTime = Number.NaN;
  let lastIso = '';
  const iso = (): string => {
    const now = clock.now();
    if (now !== lastTime) [lastTime, lastIso] = [now, new Date(now).toISOString()];
    return lastIso;
  };

  const events: ChatEvents = {
    iso,
    emitChatbot(number, participant, trigger, fields) {
      const config = emitter.configFor(number);
      const { direction } = fields;
      if (!shouldEmitChatbotEvent(config, { direction, agentAssigned: participant.assignedTo !== null }))
        return {};
      const version = chatbotPayloadVersionOf(config);
      const payload = buildChatbotPayload(state, {
        ...fields,
        version,
        participant,
        timestamp: clock.now(),
        messageId: fields.messageId ?? newId(),
      });
      const delivery = emitter.emit('chatbot', number, payload, {
        faults: trigger.faults ?? [],
        chatbotPayloadVersion: version,
        undocumented: trigger.undocumented ?? false,
        conversation: participant.id,
      });
      return delivery === undefined ? { payload } : { delivery, payload };
    },

    statusEmission(message, trigger) {
      const number = state.numbers.get(message.numberId);
      if (number === undefined) throw new InternalError('Outbound message without a number');
      const payload = buildStatusPayload(number, message);
      const delivery = emitter.emit('status', number, payload, {
        faults: trigger.faults ?? [],
        undocumented: trigger.undocumented ?? false,
        conversation: message.chatParticipantId,
      });
      return {
        message: { ...message },
        chatParticipantId: message.chatParticipantId,
        deliveries: [delivery].filter(defined),
        payload,
      };
    },

    answerInChat(number, participant, message, trigger) {
      participant.lastOutboundTemplate = null;
      participant.lastMessageTime = iso();
      return events.emitChatbot(number, participant, trigger, { direction: 'OUTGOING', ...message });
    },

    sendAgentMessage(number, participant, content, receipts) {
      // the OUTGOING event's messageId is the message's gstId: its receipts name the same id
      const gstId = newId();
      const chatbot = events.answerInChat(
        number,
        participant,
        {
          messageId: gstId,
          messageType: content.mediaUrl === null ? 'TEXT' : 'MEDIA',
          messageText: content.mediaUrl === null ? content.text : (content.caption ?? content.text),
          mediaUrl: content.mediaUrl,
        },
        {},
      );
      // an agent answering has read the chat
      participant.unread = false;
      const sendTime = participant.lastMessageTime;
      const message = newOutboundMessage(number, participant, sendTime, {
        gstId,
        voice: false,
        template: null,
        ctId: null,
        conversationCtId: null,
        agentMessage: content,
      });
      state.addMessage(message);
      const deliveries = [chatbot.delivery].filter(defined);
      for (const status of receipts) {
        // each step a documented transition: the option's sequence was checked when it was given
        applyDeliveryTransition(message, findDeliveryTransition(message.status, status)!, sendTime);
        deliveries.push(...events.statusEmission(message, {}).deliveries);
      }
      return { message: { ...message }, deliveries };
    },
  };
  return events;
}
