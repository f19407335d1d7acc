import type {
  ChatbotDirection,
  ChatbotEventV1,
  ChatbotEventV2,
  DeliveryStatus,
  IncomingMessage,
  MessageContentType,
  PartnerEvent,
  PartnerEventType,
  SessionStatus,
  SessionStatusString,
  StatusUpdate,
  WebhookPayloads,
  WebhookType,
} from '../schemas/index.js';
import { SESSION_STATUS_STRINGS, SESSION_STATUS_TYPE_OF } from '../schemas/index.js';

/** The incoming message branch of one documented content type (its key fields typed as required). */
export type IncomingMessageOf<T extends MessageContentType> = Extract<
  IncomingMessage,
  { messageContentType: T }
>;

/** The partner event branch of one documented event type. */
export type PartnerEventOf<T extends PartnerEventType> = Extract<PartnerEvent, { eventType: T }>;

/** The status receipt branch of one documented delivery status (FAILED: errorCode typed as string). */
export type StatusUpdateOf<T extends DeliveryStatus> = Extract<StatusUpdate, { status: T }>;

/** The chatbot payload type of each payload version. */
export interface ChatbotEventByVersion {
  v1: ChatbotEventV1;
  v2: ChatbotEventV2;
}

/**
 * The shape of {@link fixtures}. Each record is keyed by a documented table (content types,
 * delivery statuses, session status strings, partner event types, chatbot directions), so a
 * table row without a fixture is a type error.
 */
export interface FixtureCorpus {
  /** One incoming message per messageContentType. */
  readonly incoming: { readonly [K in MessageContentType]: IncomingMessageOf<K> };
  /** One status receipt per delivery status. */
  readonly status: { readonly [K in DeliveryStatus]: StatusUpdateOf<K> };
  /** One session status per documented status string, with the statusType it belongs to. */
  readonly session: Readonly<Record<SessionStatusString, SessionStatus>>;
  /** One partner event per eventType, with that type's fields. */
  readonly event: { readonly [K in PartnerEventType]: PartnerEventOf<K> };
  /** One chatbot event per payload version × direction. */
  readonly chatbot: {
    readonly [V in keyof ChatbotEventByVersion]: Readonly<Record<ChatbotDirection, ChatbotEventByVersion[V]>>;
  };
  /** Named cases beyond one per table row. */
  readonly variants: {
    /** A REACTION whose emoji was removed: empty text. */
    readonly reactionRemoved: IncomingMessageOf<'REACTION'>;
    /** A REACTION whose emoji was removed: null text (the documentation allows both). */
    readonly reactionRemovedNullText: IncomingMessageOf<'REACTION'>;
    /** A v2 INCOMING chatbot event after an agent took over, moving the chat to another team. */
    readonly chatbotV2AgentAssigned: ChatbotEventV2;
    /** A v2 OUTGOING chatbot event for a single text widget (not Combined). */
    readonly chatbotV2OutgoingText: ChatbotEventV2;
  };
}

/** Realistic identities shared by the fixtures: one business number, one customer. */
export const FIXTURE_PARTIES = {
  /** The business's messaging number (E.164). */
  businessNumber: '+27215550100',
  /** The customer's phone number (E.164). */
  customerNumber: '+27825550143',
  /** The customer's phone number without + (partner events' waId). */
  customerWaId: '27825550143',
  /** The customer's BSUID. */
  customerUserId: 'ZA.1188294770315526',
  customerName: 'Thandi Nkosi',
  customerUsername: 'thandi.n',
  chatParticipantId: '6f1c2d7e-93a4-4b8e-a5d2-0c7e19f4b3a1',
  conversationId: '0b9e5c34-7d21-4f6a-9e8b-52c1a4d7e3f0',
  participantId: 'c2a4e6f8-1b3d-4c5e-8f7a-9b0c1d2e3f40',
  teamId: '4d8f2a61-3c7b-4e95-b1a0-7f6e5d4c3b2a',
  teamName: 'Order Support',
  agentId: '9a7b5c3d-1e2f-4a6b-8c9d-0e1f2a3b4c5d',
  agentName: 'Sipho Dlamini',
  templateId: 'e3d2c1b0-a9f8-4e7d-b6c5-4a3b2c1d0e9f',
  templateName: 'order_shipped',
} as const;

const P = FIXTURE_PARTIES;

/** 2025-05-14T09:21:07.000Z: the base time of the corpus; later events add seconds. */
const BASE_MS = Date.UTC(2025, 4, 14, 9, 21, 7);
const at = (seconds: number): string => new Date(BASE_MS + seconds * 1000).toISOString();
const msAt = (seconds: number): number => BASE_MS + seconds * 1000;

/** Fields every fixture incoming message shares (the customer writing to the business). */
const incomingCommon = {
  profileName: P.customerName,
  sender: P.customerNumber,
  senderUserId: P.customerUserId,
  receiver: P.businessNumber,
  messageType: 'CONVERSATION',
  conversationId: P.conversationId,
  participantId: P.participantId,
  status: 'RECEIVED',
  errorCode: '',
  errorCodeString: '',
} as const;

const incoming: FixtureCorpus['incoming'] = {
  TEXT: {
    ...incomingCommon,
    username: P.customerUsername,
    messageContentType: 'TEXT',
    text: 'Hi, where is my order #10428?',
    gstId: '8d3f1a2b-6c4e-4f7a-9b1d-2e5c8a0f6d31',
    sentTime: at(0),
    requestId: 'a1f0c9e8-d7b6-4a5c-9e3d-2f1b0a9c8d7e',
  },
  MEDIA: {
    ...incomingCommon,
    messageContentType: 'MEDIA',
    text: null,
    mediaUrl: 'https://media.example.net/inbound/2025/05/14/5c1e7b9a-receipt.jpg',
    caption: 'Photo of the damaged box',
    fileExtension: 'jpg',
    gstId: '1e7c4b9a-3d2f-4a8e-b6c0-9f5d2a7e1c84',
    sentTime: at(20),
    requestId: 'b2e1d0c9-f8a7-4b6c-8d5e-3a2c1b0d9e8f',
  },
  LOCATION: {
    ...incomingCommon,
    messageContentType: 'LOCATION',
    latitude: '-33.9249',
    longitude: '18.4241',
    label: 'Home',
    address: '12 Long Street, Cape Town, 8001',
    gstId: '5a9d2c7e-1f4b-4e8a-a3c6-7b0e2d5f9a12',
    sentTime: at(40),
    requestId: 'c3f2e1d0-a9b8-4c7d-9e6f-4b3d2c1e0f9a',
  },
  BUTTON: {
    ...incomingCommon,
    messageContentType: 'BUTTON',
    buttonText: 'Track my parcel',
    buttonPayload: 'TRACK_ORDER_10428',
    templateId: P.templateId,
    templateName: P.templateName,
    bodyParameters: { 'parameter 1': 'Thandi', 'parameter 2': '#10428' },
    tqrmtId: '7c5e3a1f-9d8b-4f6e-a4c2-0b1d3f5e7a9c',
    gstId: '3c8e1a6d-5b2f-4d9c-8e7a-1f4b6d9c2e05',
    sentTime: at(60),
    requestId: 'd4a3f2e1-b0c9-4d8e-8f7a-5c4e3d2f1a0b',
  },
  INTERACTIVE: {
    ...incomingCommon,
    messageContentType: 'INTERACTIVE',
    buttonText: 'Change delivery date',
    buttonPayload: 'menu.delivery.reschedule',
    gstId: '9b2d6f1a-7e3c-4a5b-b8d0-2c6e9a1f4b73',
    sentTime: at(80),
    requestId: 'e5b4a3f2-c1d0-4e9f-9a8b-6d5f4e3a2b1c',
  },
  CONTACT: {
    ...incomingCommon,
    messageContentType: 'CONTACT',
    text: 'Contact: Lerato Mokoena, Phone: +27835550172',
    gstId: '6e1a9c4f-2b7d-4f3e-9c5a-8d1b4e7a0c26',
    sentTime: at(100),
    requestId: 'f6c5b4a3-d2e1-4f0a-8b9c-7e6a5f4b3c2d',
  },
  REACTION: {
    ...incomingCommon,
    messageContentType: 'REACTION',
    text: '👍',
    // Rule from the content-type table: for REACTION, gstId is the reacted-to message.
    gstId: '2f6b9d3e-8a1c-4e7b-a5d9-3c7f1b4e8d60',
    sentTime: at(120),
    requestId: '07d6c5b4-e3f2-4a1b-9c0d-8f7b6a5c4d3e',
  },
  CAROUSEL: {
    ...incomingCommon,
    messageContentType: 'CAROUSEL',
    buttonText: 'Buy now',
    buttonPayload: 'carousel.card-2.sku-TSHIRT-BLK-M',
    gstId: '4a8c2e6b-0d9f-4b1a-8e3c-5f9a2d6c0e47',
    sentTime: at(140),
    requestId: '18e7d6c5-f4a3-4b2c-8d1e-9a8c7b6d5e4f',
  },
};

/** Fields every fixture status receipt shares (the business's message to the customer). */
const statusCommon = {
  sender: P.businessNumber,
  receiver: P.customerNumber,
  recipientUserId: P.customerUserId,
  gstId: 'b7e2a9d4-6c1f-4e8b-9a3d-5f0c7e2b8a16',
  ctId: 'order-10428-shipped',
  conversationCtId: 'order-10428',
  sendTime: at(200),
  conversationId: P.conversationId,
  participantId: P.participantId,
  cost: '0.0147',
  requestId: '29f8e7d6-a5b4-4c3d-9e2f-0b9d8c7e6f5a',
  tqrmtId: '7c5e3a1f-9d8b-4f6e-a4c2-0b1d3f5e7a9c',
} as const;

const status: FixtureCorpus['status'] = {
  ACCEPTED: { ...statusCommon, status: 'ACCEPTED' },
  SENT: { ...statusCommon, status: 'SENT' },
  DELIVERED: { ...statusCommon, status: 'DELIVERED', deliveryTime: at(203) },
  READ: { ...statusCommon, status: 'READ', deliveryTime: at(203), readTime: at(260) },
  PLAYED: {
    ...statusCommon,
    // PLAYED is reported for voice notes only.
    ctId: 'voice-note-welcome',
    status: 'PLAYED',
    deliveryTime: at(203),
    readTime: at(260),
    playedTime: at(275),
  },
  FAILED: {
    ...statusCommon,
    status: 'FAILED',
    errorCode: '131026',
    errorCodeString: 'Message undeliverable: the recipient cannot receive this message',
  },
};

const session = Object.fromEntries(
  SESSION_STATUS_STRINGS.map((statusString, index) => [
    statusString,
    {
      messagingNumber: P.businessNumber,
      status: statusString,
      statusType: SESSION_STATUS_TYPE_OF[statusString],
      timestamp: msAt(300 + index),
    } satisfies SessionStatus,
  ]),
) as Record<SessionStatusString, SessionStatus>;

const partnerCommon = { messagingNumber: P.businessNumber } as const;

const event: FixtureCorpus['event'] = {
  PHONE_QUALITY_CHANGED: {
    ...partnerCommon,
    eventType: 'PHONE_QUALITY_CHANGED',
    timestamp: msAt(400),
    qualityRating: 'YELLOW',
    messagingLimitTier: 'TIER_10K',
    channelStatus: 'CONNECTED',
  },
  TEMPLATE_STATUS_CHANGED: {
    ...partnerCommon,
    eventType: 'TEMPLATE_STATUS_CHANGED',
    timestamp: msAt(410),
    templateName: 'spring_sale_2025',
    templateStatus: 'REJECTED',
    rejectedReason: 'INVALID_FORMAT',
  },
  TEMPLATE_QUALITY_CHANGED: {
    ...partnerCommon,
    eventType: 'TEMPLATE_QUALITY_CHANGED',
    timestamp: msAt(420),
    templateName: P.templateName,
    previousQualityScore: 'GREEN',
    newQualityScore: 'YELLOW',
  },
  TEMPLATE_COMPONENTS_CHANGED: {
    ...partnerCommon,
    eventType: 'TEMPLATE_COMPONENTS_CHANGED',
    timestamp: msAt(430),
    templateName: P.templateName,
    templateLanguage: 'en',
    templateElement: 'BODY',
  },
  USER_PREFERENCE: {
    ...partnerCommon,
    eventType: 'USER_PREFERENCE',
    timestamp: msAt(440),
    waId: P.customerWaId,
    category: 'MARKETING',
    preferenceValue: 'stop',
  },
  USER_CHANGED_NUMBER: {
    ...partnerCommon,
    eventType: 'USER_CHANGED_NUMBER',
    timestamp: msAt(450),
    oldNumber: P.customerNumber,
    newNumber: '+27835550199',
  },
};

/** What a chatbot event carries whatever its version or direction. */
const chatbotCommon = {
  chatParticipantId: P.chatParticipantId,
  conversationStatus: 'ACTIVE',
  conversationClosed: false,
  conversationMissed: false,
  chatBotConversation: true,
  clientRef: 'acme-retail',
} as const;

/** Customer to bot: sender is the customer, receiver the business. */
const incomingParties = { senderMsisdn: P.customerNumber, receiverMsisdn: P.businessNumber } as const;
/** Bot to customer: sender is the business, receiver the customer. */
const outgoingParties = { senderMsisdn: P.businessNumber, receiverMsisdn: P.customerNumber } as const;

/** OUTGOING Combined: messageText is a JSON-serialised list of widgets. */
const COMBINED_WIDGETS = JSON.stringify([
  { type: 'text', text: 'Your order #10428 left our warehouse today.' },
  {
    type: 'button',
    text: 'What would you like to do?',
    buttons: [
      { title: 'Track parcel', payload: 'TRACK_ORDER_10428' },
      { title: 'Talk to an agent', payload: 'HANDOVER' },
    ],
  },
]);

const chatbot: FixtureCorpus['chatbot'] = {
  v1: {
    INCOMING: {
      ...chatbotCommon,
      ...incomingParties,
      eventId: 'd1c8e4a7-2b9f-4f3d-8a6e-0c5b7d9e1f23',
      direction: 'INCOMING',
      timestamp: msAt(500),
      conversationStatus: 'NEW',
      messageId: 'msg-in-3f9a1c7e',
      messageType: 'TEXT',
      messageText: 'Track my order please',
      // Present because the last outbound message to this participant was a template send.
      templateId: P.templateId,
      templateName: P.templateName,
    },
    OUTGOING: {
      ...chatbotCommon,
      ...outgoingParties,
      eventId: 'e2d9f5b8-3c0a-4a4e-9b7f-1d6c8e0f2a34',
      direction: 'OUTGOING',
      timestamp: msAt(501),
      messageId: 'msg-out-4a0b2d8f',
      ctId: 'bot-reply-10428',
      messageType: 'Combined',
      messageText: COMBINED_WIDGETS,
    },
  },
  v2: {
    INCOMING: {
      ...chatbotCommon,
      ...incomingParties,
      eventId: 'f3e0a6c9-4d1b-4b5f-8c8a-2e7d9f1a3b45',
      direction: 'INCOMING',
      timestamp: msAt(510),
      messageId: 'msg-in-5b1c3e9a',
      messageType: 'TEXT',
      messageText: 'Yes, that one',
      teamId: P.teamId,
      teamName: P.teamName,
      quotedMessageId: 'msg-out-4a0b2d8f',
      quotedText: 'Your order #10428 left our warehouse today.',
      senderUserId: P.customerUserId,
      username: P.customerUsername,
    },
    OUTGOING: {
      ...chatbotCommon,
      ...outgoingParties,
      eventId: '04f1b7da-5e2c-4c6a-9d9b-3f8e0a2b4c56',
      direction: 'OUTGOING',
      timestamp: msAt(511),
      messageId: 'msg-out-6c2d4f0b',
      messageType: 'Combined',
      messageText: COMBINED_WIDGETS,
      teamId: P.teamId,
      teamName: P.teamName,
      recipientUserId: P.customerUserId,
      username: P.customerUsername,
    },
  },
};

const variants: FixtureCorpus['variants'] = {
  reactionRemoved: {
    ...incoming.REACTION,
    text: '',
    sentTime: at(130),
    requestId: '3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
  },
  reactionRemovedNullText: {
    ...incoming.REACTION,
    text: null,
    sentTime: at(135),
    requestId: '4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e',
  },
  chatbotV2AgentAssigned: {
    ...chatbotCommon,
    ...incomingParties,
    eventId: '15a2c8eb-6f3d-4d7b-8e0c-4a9f1b3c5d67',
    direction: 'INCOMING',
    timestamp: msAt(520),
    chatBotConversation: false,
    assignedAgentId: P.agentId,
    assignedAgentName: P.agentName,
    lastAssignedAgentId: '2b8c4d6e-0f1a-4b3c-9d5e-7f9a1b3c5d7e',
    lastAssignedAgentName: 'Naledi Khumalo',
    messageId: 'msg-in-7d3e5a1c',
    messageType: 'TEXT',
    messageText: 'The box was crushed when it arrived',
    teamId: '5e9a3b72-4d8c-4fa6-b2b1-8a7f6e5d4c3b',
    teamName: 'Returns',
    routedToAnotherTeam: true,
    senderUserId: P.customerUserId,
  },
  chatbotV2OutgoingText: {
    ...chatbotCommon,
    ...outgoingParties,
    eventId: '26b3d9fc-7a4e-4e8c-9f1d-5b0a2c4d6e78',
    direction: 'OUTGOING',
    timestamp: msAt(530),
    messageId: 'msg-out-8e4f6b2d',
    messageType: 'TEXT',
    messageText: 'Thanks! A team member will be with you shortly.',
    teamId: P.teamId,
    teamName: P.teamName,
    recipientUserId: P.customerUserId,
  },
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * A typed corpus of realistic payloads: one per documented content type, delivery status,
 * session status string, partner event type and chatbot payload version × direction, plus
 * named {@link FixtureCorpus.variants}. Deeply frozen so one test cannot change another's
 * input; spread a fixture to vary it.
 *
 * @example
 * await request(app).post('/webhooks/incoming').send(fixtures.incoming.TEXT).expect(200);
 * const optOut = { ...fixtures.event.USER_PREFERENCE, preferenceValue: 'resume' };
 */
export const fixtures: FixtureCorpus = deepFreeze({
  incoming,
  status,
  session,
  event,
  chatbot,
  variants,
});

/** One fixture of {@link allFixtures}: its name, webhook type and payload. */
export type NamedFixture = {
  [T in WebhookType]: {
    /** Dotted path in {@link fixtures}, e.g. `incoming.TEXT` or `chatbot.v2.INCOMING`. */
    readonly name: string;
    readonly type: T;
    readonly payload: WebhookPayloads[T];
  };
}[WebhookType];

const VARIANT_TYPES = {
  reactionRemoved: 'incoming',
  reactionRemovedNullText: 'incoming',
  chatbotV2AgentAssigned: 'chatbot',
  chatbotV2OutgoingText: 'chatbot',
} as const satisfies Record<keyof FixtureCorpus['variants'], WebhookType>;

/**
 * Every fixture as a flat list for table-driven tests (`it.each`). Each call returns fresh,
 * mutable copies.
 *
 * @example
 * it.each(allFixtures())('$name passes its schema', ({ type, payload }) => {
 *   expect(parseWebhook(type, payload).success).toBe(true);
 * });
 */
export function allFixtures(): NamedFixture[] {
  const list: NamedFixture[] = [];
  const add = (fixture: NamedFixture): void => {
    list.push({ ...fixture, payload: structuredClone(fixture.payload) } as NamedFixture);
  };
  for (const [key, payload] of Object.entries(fixtures.incoming)) {
    add({ name: `incoming.${key}`, type: 'incoming', payload });
  }
  for (const [key, payload] of Object.entries(fixtures.status)) {
    add({ name: `status.${key}`, type: 'status', payload });
  }
  for (const [key, payload] of Object.entries(fixtures.session)) {
    add({ name: `session.${key}`, type: 'session', payload });
  }
  for (const [key, payload] of Object.entries(fixtures.event)) {
    add({ name: `event.${key}`, type: 'event', payload });
  }
  for (const [version, byDirection] of Object.entries(fixtures.chatbot)) {
    for (const [direction, payload] of Object.entries(byDirection)) {
      add({ name: `chatbot.${version}.${direction}`, type: 'chatbot', payload });
    }
  }
  for (const [key, payload] of Object.entries(fixtures.variants)) {
    add({
      name: `variants.${key}`,
      type: VARIANT_TYPES[key as keyof FixtureCorpus['variants']],
      payload,
    } as NamedFixture);
  }
  return list;
}
