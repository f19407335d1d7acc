/**
 * Compile-time tests: each union of the interface documentation narrows on its discriminator,
 * and inside a documented branch the key fields are required and typed. Checked by
 * `npm run typecheck` (tsconfig.json includes test/); a regression is a type error there.
 */
import { expectTypeOf } from 'expect-type';
import {
  isChatbotV2,
  type ChatbotEvent,
  type ChatbotEventV1,
  type ChatbotEventV2,
  type ChatbotIncomingEventV2,
  type FailedStatusUpdate,
  type IncomingMessage,
  type IncomingTextMessage,
  type OpenEnum,
  type ReadStatusUpdate,
  type SessionStatus,
  type UserPreferenceEvent,
  type PartnerEvent,
  type StatusUpdate,
  type UnlistedChatbotEvent,
  type UnlistedIncomingMessage,
  type UnlistedPartnerEvent,
  type UnlistedStatusUpdate,
  type UnlistedValue,
} from '../../src/schemas/index.js';

type Nullish<T> = T | null | undefined;

export function incomingNarrowsByContentType(message: IncomingMessage): void {
  switch (message.messageContentType) {
    case 'TEXT':
      expectTypeOf(message.text).toEqualTypeOf<string>();
      break;
    case 'MEDIA':
      expectTypeOf(message.mediaUrl).toEqualTypeOf<string>();
      expectTypeOf(message.caption).toEqualTypeOf<Nullish<string>>();
      break;
    case 'LOCATION':
      expectTypeOf(message.latitude).toEqualTypeOf<string>();
      expectTypeOf(message.longitude).toEqualTypeOf<string>();
      expectTypeOf(message.label).toEqualTypeOf<Nullish<string>>();
      break;
    case 'CONTACT':
      expectTypeOf(message.text).toEqualTypeOf<string>();
      break;
    case 'REACTION':
      expectTypeOf(message.gstId).toEqualTypeOf<string>();
      // Empty or null text means the reaction was removed.
      expectTypeOf(message.text).toEqualTypeOf<Nullish<string>>();
      break;
    case 'BUTTON':
    case 'INTERACTIVE':
    case 'CAROUSEL':
      expectTypeOf(message.messageContentType).toEqualTypeOf<'BUTTON' | 'INTERACTIVE' | 'CAROUSEL'>();
      expectTypeOf(message.buttonPayload).toEqualTypeOf<Nullish<string>>();
      break;
    default:
      // Only the unlisted member is left: a content type the documentation does not list.
      expectTypeOf(message).toEqualTypeOf<UnlistedIncomingMessage>();
      expectTypeOf(message.messageContentType).toEqualTypeOf<UnlistedValue>();
      expectTypeOf(String(message.messageContentType)).toEqualTypeOf<string>();
  }
  if (message.messageContentType === 'LOCATION') expectTypeOf(message.latitude).toEqualTypeOf<string>();
  if (message.messageContentType !== 'TEXT') {
    // @ts-expect-error the TEXT branch is excluded, so text is optional again
    expectTypeOf(message.text).toEqualTypeOf<string>();
  }
  expectTypeOf(message.sender).toEqualTypeOf<string>();
  // @ts-expect-error a misspelled field is a compile error, not `unknown`
  void message.sendr;
}

export function partnerNarrowsByEventType(event: PartnerEvent): void {
  switch (event.eventType) {
    case 'USER_PREFERENCE':
      expectTypeOf(event.waId).toEqualTypeOf<string>();
      expectTypeOf(event.preferenceValue).toEqualTypeOf<'stop' | 'resume' | (string & {})>();
      expectTypeOf(event.preferenceValue).toEqualTypeOf<OpenEnum<'stop' | 'resume'>>();
      expectTypeOf(event.category).toEqualTypeOf<Nullish<string>>();
      break;
    case 'USER_CHANGED_NUMBER':
      expectTypeOf(event.oldNumber).toEqualTypeOf<string>();
      expectTypeOf(event.newNumber).toEqualTypeOf<string>();
      break;
    case 'TEMPLATE_STATUS_CHANGED':
      expectTypeOf(event.templateName).toEqualTypeOf<string>();
      expectTypeOf(event.templateStatus).toEqualTypeOf<
        Nullish<OpenEnum<'APPROVED' | 'REJECTED' | 'PAUSED' | 'DISABLED'>>
      >();
      expectTypeOf(event.rejectedReason).toEqualTypeOf<Nullish<string>>();
      break;
    case 'TEMPLATE_QUALITY_CHANGED':
      expectTypeOf(event.templateName).toEqualTypeOf<string>();
      expectTypeOf(event.newQualityScore).toEqualTypeOf<
        Nullish<OpenEnum<'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN'>>
      >();
      break;
    case 'TEMPLATE_COMPONENTS_CHANGED':
      expectTypeOf(event.templateName).toEqualTypeOf<string>();
      expectTypeOf(event.templateElement).toEqualTypeOf<
        Nullish<OpenEnum<'HEADER' | 'BODY' | 'FOOTER' | 'BUTTONS'>>
      >();
      break;
    case 'PHONE_QUALITY_CHANGED':
      expectTypeOf(event.qualityRating).toEqualTypeOf<Nullish<OpenEnum<'GREEN' | 'YELLOW' | 'RED'>>>();
      break;
    default:
      expectTypeOf(event).toEqualTypeOf<UnlistedPartnerEvent>();
      expectTypeOf(event.eventType).toEqualTypeOf<UnlistedValue>();
  }
  if (event.eventType === 'USER_PREFERENCE' && event.preferenceValue === 'stop') {
    expectTypeOf(event.waId).toEqualTypeOf<string>();
  }
  expectTypeOf(event.messagingNumber).toEqualTypeOf<Nullish<string>>();
  // @ts-expect-error waId belongs to USER_PREFERENCE only: narrow first
  void event.waId;
}

export function statusNarrowsByStatus(receipt: StatusUpdate): void {
  switch (receipt.status) {
    case 'FAILED':
      expectTypeOf(receipt.errorCode).toEqualTypeOf<string>();
      expectTypeOf(receipt.errorCodeString).toEqualTypeOf<string>();
      break;
    case 'ACCEPTED':
    case 'SENT':
    case 'DELIVERED':
    case 'READ':
    case 'PLAYED':
      expectTypeOf(receipt.status).toEqualTypeOf<'ACCEPTED' | 'SENT' | 'DELIVERED' | 'READ' | 'PLAYED'>();
      expectTypeOf(receipt.deliveryTime).toEqualTypeOf<Nullish<string>>();
      break;
    default:
      expectTypeOf(receipt).toEqualTypeOf<UnlistedStatusUpdate>();
  }
  expectTypeOf(receipt.gstId).toEqualTypeOf<string>();
  // @ts-expect-error a misspelled field is a compile error
  void receipt.gstid;
}

export function chatbotNarrowsByDirectionAndVersion(event: ChatbotEvent): void {
  switch (event.direction) {
    case 'INCOMING':
    case 'OUTGOING':
      expectTypeOf(event.chatParticipantId).toEqualTypeOf<string>();
      expectTypeOf(event.messageText).toEqualTypeOf<Nullish<string>>();
      break;
    default:
      expectTypeOf(event).toEqualTypeOf<UnlistedChatbotEvent>();
      expectTypeOf(event.direction).toEqualTypeOf<UnlistedValue>();
  }
  if (isChatbotV2(event)) {
    expectTypeOf(event).toEqualTypeOf<ChatbotEventV2>();
    expectTypeOf(event.teamId).toEqualTypeOf<Nullish<string>>();
    // v2: the customer BSUID is always present on the side the direction names.
    if (event.direction === 'INCOMING') expectTypeOf(event.senderUserId).toEqualTypeOf<string>();
    if (event.direction === 'OUTGOING') expectTypeOf(event.recipientUserId).toEqualTypeOf<string>();
  } else {
    expectTypeOf(event).toEqualTypeOf<ChatbotEventV1>();
    // @ts-expect-error teamId is a v2 field
    void event.teamId;
  }
  // @ts-expect-error a misspelled field is a compile error
  void event.chatParticipantID;
}

export function unlistedValuesAreNotLiterals(message: IncomingMessage): void {
  // A value the documentation does not list cannot be named as a literal: compare its string.
  // @ts-expect-error 'STICKER' is not a documented content type
  if (message.messageContentType === 'STICKER') return;
  if (String(message.messageContentType) === 'STICKER') {
    expectTypeOf(message.messageContentType).toEqualTypeOf<IncomingMessage['messageContentType']>();
  }
}

/** Issue 25: a variant offers only its own content fields. */
export function variantsOfferOnlyTheirOwnContentFields(message: IncomingMessage): void {
  switch (message.messageContentType) {
    case 'TEXT':
      expectTypeOf(message).toEqualTypeOf<IncomingTextMessage>();
      // @ts-expect-error LOCATION only
      void message.latitude;
      // @ts-expect-error MEDIA only
      void message.mediaUrl;
      // @ts-expect-error BUTTON, INTERACTIVE and CAROUSEL only
      void message.buttonPayload;
      break;
    case 'LOCATION':
      expectTypeOf(message.address).toEqualTypeOf<Nullish<string>>();
      // @ts-expect-error MEDIA only
      void message.caption;
      break;
    case 'MEDIA':
      expectTypeOf(message.fileExtension).toEqualTypeOf<Nullish<string>>();
      // @ts-expect-error LOCATION only
      void message.label;
      break;
    case 'BUTTON':
    case 'INTERACTIVE':
    case 'CAROUSEL':
      expectTypeOf(message.buttonText).toEqualTypeOf<Nullish<string>>();
      break;
    case 'REACTION':
      // @ts-expect-error LOCATION only
      void message.longitude;
      break;
    case 'CONTACT':
      // @ts-expect-error MEDIA only
      void message.mediaUrl;
      break;
    default:
      // A content type the documentation does not list: every content field, all optional.
      expectTypeOf(message.latitude).toEqualTypeOf<Nullish<string>>();
      expectTypeOf(message.text).toEqualTypeOf<Nullish<string>>();
  }
  // Fields every content type carries stay readable without narrowing, `text` among them.
  expectTypeOf(message.text).toEqualTypeOf<Nullish<string>>();
  expectTypeOf(message.gstId).toEqualTypeOf<Nullish<string>>();
  expectTypeOf(message.profileName).toEqualTypeOf<Nullish<string>>();
}

/**
 * The exhaustive switch of the README: it compiles while payloads carry unlisted values (they
 * reach `default` as the Unlisted variant) and stops compiling when a documented case is missing.
 */
export function exhaustive(message: IncomingMessage): string {
  switch (message.messageContentType) {
    case 'TEXT':
    case 'CONTACT':
      return message.text;
    case 'MEDIA':
      return message.mediaUrl;
    case 'LOCATION':
      return `${message.latitude},${message.longitude}`;
    case 'BUTTON':
    case 'INTERACTIVE':
    case 'CAROUSEL':
      return message.buttonPayload ?? '';
    case 'REACTION':
      return message.gstId;
    default:
      message satisfies UnlistedIncomingMessage;
      return `unlisted ${String(message.messageContentType)}`;
  }
}

export function notExhaustive(message: IncomingMessage): string {
  switch (message.messageContentType) {
    case 'TEXT':
      return message.text;
    default:
      // @ts-expect-error MEDIA, LOCATION, ... are not handled: the default is not only the unlisted variant
      message satisfies UnlistedIncomingMessage;
      return '';
  }
}

export function variantsOfEveryPayloadAreNamed(
  status: StatusUpdate,
  event: PartnerEvent,
  chatbot: ChatbotEventV2,
): void {
  if (status.status === 'FAILED') expectTypeOf(status).toEqualTypeOf<FailedStatusUpdate>();
  if (status.status === 'READ') expectTypeOf(status).toEqualTypeOf<ReadStatusUpdate>();
  if (event.eventType === 'USER_PREFERENCE') expectTypeOf(event).toEqualTypeOf<UserPreferenceEvent>();
  if (chatbot.direction === 'INCOMING') expectTypeOf(chatbot).toEqualTypeOf<ChatbotIncomingEventV2>();
  expectTypeOf<SessionStatus['messagingNumber']>().toEqualTypeOf<string>();
}
