import type * as z from 'zod';
import {
  chatbotEventV1,
  chatbotEventV2,
  CHATBOT_DIRECTIONS,
  CHATBOT_MESSAGE_TYPES,
  detectChatbotPayloadVersion,
  type ChatbotEvent,
  type ChatbotPayloadVersion,
} from './chatbot.js';
import {
  incomingMessage,
  INCOMING_MESSAGE_TYPES,
  MESSAGE_CONTENT_TYPES,
  type IncomingMessage,
} from './incoming.js';
import {
  compileEnumFields,
  type EnumFieldCheck,
  type EnumFieldTable,
  type UnlistedEnumValue,
} from './open-enum.js';
import {
  CHANNEL_STATUSES,
  MESSAGING_LIMIT_TIERS,
  partnerEvent,
  PARTNER_EVENT_TYPES,
  PREFERENCE_VALUES,
  QUALITY_RATINGS,
  TEMPLATE_ELEMENTS,
  TEMPLATE_QUALITY_SCORES,
  TEMPLATE_STATUSES,
  type PartnerEvent,
} from './partner.js';
import {
  sessionStatusSchema,
  SESSION_STATUS_STRINGS,
  SESSION_STATUS_TYPES,
  type SessionStatus,
} from './session.js';
import { DELIVERY_STATUSES, statusUpdate, type StatusUpdate } from './status.js';
import type { WebhookType } from './webhook-types.js';

/** The payload type of each webhook type. */
export interface WebhookPayloads {
  incoming: IncomingMessage;
  status: StatusUpdate;
  session: SessionStatus;
  event: PartnerEvent;
  chatbot: ChatbotEvent;
}

/** Each webhook type's enum fields and their documented values; anything else is "unlisted". */
export const ENUM_FIELDS: Readonly<Record<WebhookType, EnumFieldTable>> = {
  incoming: { messageContentType: MESSAGE_CONTENT_TYPES, messageType: INCOMING_MESSAGE_TYPES },
  status: { status: DELIVERY_STATUSES },
  session: { statusType: SESSION_STATUS_TYPES, status: SESSION_STATUS_STRINGS },
  event: {
    eventType: PARTNER_EVENT_TYPES,
    qualityRating: QUALITY_RATINGS,
    messagingLimitTier: MESSAGING_LIMIT_TIERS,
    channelStatus: CHANNEL_STATUSES,
    templateStatus: TEMPLATE_STATUSES,
    previousQualityScore: TEMPLATE_QUALITY_SCORES,
    newQualityScore: TEMPLATE_QUALITY_SCORES,
    templateElement: TEMPLATE_ELEMENTS,
    preferenceValue: PREFERENCE_VALUES,
  },
  chatbot: { direction: CHATBOT_DIRECTIONS, messageType: CHATBOT_MESSAGE_TYPES },
};

/** {@link ENUM_FIELDS}, each table compiled once (`compileEnumFields`). */
const UNLISTED_IN = Object.fromEntries(
  Object.entries(ENUM_FIELDS).map(([type, table]) => [type, compileEnumFields(table)]),
) as Readonly<Record<WebhookType, EnumFieldCheck>>;

/** One reason a payload failed its schema: a dotted path (empty for the root) and a message. */
export interface PayloadIssue {
  readonly path: string;
  readonly message: string;
}

export type ParseWebhookResult<T extends WebhookType = WebhookType> =
  | {
      readonly success: true;
      readonly type: T;
      readonly data: WebhookPayloads[T];
      /** Chatbot events only: the payload version the event was parsed as. */
      readonly payloadVersion?: ChatbotPayloadVersion;
      /** Enum values the documentation does not list (the payload is accepted regardless). */
      readonly unlisted: readonly UnlistedEnumValue[];
    }
  | { readonly success: false; readonly type: T; readonly issues: readonly PayloadIssue[] };

export interface ParseWebhookOptions {
  /**
   * Chatbot events: the payload version to validate against. By default it is detected from
   * the payload ({@link detectChatbotPayloadVersion}).
   */
  readonly chatbotPayloadVersion?: ChatbotPayloadVersion | undefined;
}

type Parser = (
  input: unknown,
  options: ParseWebhookOptions,
) => {
  result: z.ZodSafeParseResult<unknown>;
  payloadVersion?: ChatbotPayloadVersion;
};

const PARSERS: Readonly<Record<WebhookType, Parser>> = {
  incoming: (input) => ({ result: incomingMessage.safeParse(input) }),
  status: (input) => ({ result: statusUpdate.safeParse(input) }),
  session: (input) => ({ result: sessionStatusSchema.safeParse(input) }),
  event: (input) => ({ result: partnerEvent.safeParse(input) }),
  chatbot: (input, options) => {
    const payloadVersion =
      options.chatbotPayloadVersion ??
      (isRecord(input) ? detectChatbotPayloadVersion(input) : ('v1' satisfies ChatbotPayloadVersion));
    const schema = payloadVersion === 'v2' ? chatbotEventV2 : chatbotEventV1;
    return { result: schema.safeParse(input), payloadVersion };
  },
};

/**
 * Validates a payload as the given webhook type. Unknown extra fields are kept; enum values the
 * documentation does not list are accepted and reported in `unlisted`.
 *
 * @example
 * const parsed = parseWebhook('status', body);
 * if (!parsed.success) console.log(parsed.issues); // [{ path: 'gstId', message: '...' }]
 */
export function parseWebhook<T extends WebhookType>(
  type: T,
  input: unknown,
  options: ParseWebhookOptions = {},
): ParseWebhookResult<T> {
  const { result, payloadVersion } = PARSERS[type](input, options);
  if (!result.success) return { success: false, type, issues: toPayloadIssues(result.error) };
  const data = result.data as WebhookPayloads[T];
  const unlisted = UNLISTED_IN[type](data);
  return payloadVersion === undefined
    ? { success: true, type, data, unlisted }
    : { success: true, type, data, unlisted, payloadVersion };
}

/** Flattens zod issues into dotted paths and messages. */
function toPayloadIssues(error: z.ZodError): PayloadIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
