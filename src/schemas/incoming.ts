import { z } from 'zod';
import { identifier, optionalString } from './fields.js';
import { openEnum } from './open-enum.js';
import { openDiscriminatedUnion, passthroughObject, unlistedValue } from './open-union.js';

/** messageContentType values of the incoming message payload (section Events). */
export const MESSAGE_CONTENT_TYPES = [
  'TEXT',
  'MEDIA',
  'LOCATION',
  'BUTTON',
  'INTERACTIVE',
  'CONTACT',
  'REACTION',
  'CAROUSEL',
] as const;
export type MessageContentType = (typeof MESSAGE_CONTENT_TYPES)[number];

/** messageType values of the incoming message payload: the billing model. */
export const INCOMING_MESSAGE_TYPES = ['INTERACTION', 'CONVERSATION'] as const;

/** Fields every incoming message may carry, whatever its content type. */
const incomingBaseShape = {
  profileName: optionalString,
  sender: identifier,
  senderUserId: optionalString,
  username: optionalString,
  receiver: optionalString,
  text: optionalString,
  buttonText: optionalString,
  buttonPayload: optionalString,
  latitude: optionalString,
  longitude: optionalString,
  label: optionalString,
  address: optionalString,
  mediaUrl: optionalString,
  caption: optionalString,
  fileExtension: optionalString,
  messageType: openEnum(INCOMING_MESSAGE_TYPES).nullish(),
  gstId: optionalString,
  ctId: optionalString,
  conversationId: optionalString,
  participantId: optionalString,
  sentTime: optionalString,
  status: optionalString,
  cost: optionalString,
  templateId: optionalString,
  templateName: optionalString,
  bodyParameters: z.record(z.string(), z.unknown()).nullish(),
  tqrmtId: optionalString,
  conversationStatusCode: optionalString,
  conversationStatusMessage: optionalString,
  requestId: optionalString,
  errorCode: optionalString,
  errorCodeString: optionalString,
};

// Omit the base fields a branch redefines: a spread of a generic shape is an intersection, and
// intersecting two schemas of one field would type that field as `never`.
const branch = <const T extends MessageContentType, S extends z.ZodRawShape>(type: T, keyFields: S) => {
  const base: Omit<typeof incomingBaseShape, keyof S> = incomingBaseShape;
  return passthroughObject({ ...base, messageContentType: z.literal(type), ...keyFields });
};

/** Key fields per content type, from the content-type table of section Events. */
export const incomingTextSchema = branch('TEXT', { text: z.string() });
export const incomingMediaSchema = branch('MEDIA', { mediaUrl: z.string() });
export const incomingLocationSchema = branch('LOCATION', { latitude: z.string(), longitude: z.string() });
export const incomingButtonSchema = branch('BUTTON', {});
export const incomingInteractiveSchema = branch('INTERACTIVE', {});
export const incomingContactSchema = branch('CONTACT', { text: z.string() });
/** `gstId` is the reacted-to message; empty or null `text` means the reaction was removed. */
export const incomingReactionSchema = branch('REACTION', { gstId: identifier });
export const incomingCarouselSchema = branch('CAROUSEL', {});

/**
 * An incoming message whose messageContentType the documentation does not list: the common
 * fields, every one optional but `sender`, and the content type as an {@link UnlistedValue}.
 */
export const incomingUnlistedSchema = passthroughObject({
  ...incomingBaseShape,
  messageContentType: unlistedValue(MESSAGE_CONTENT_TYPES),
});

export const incomingMessage = openDiscriminatedUnion(
  'messageContentType',
  [
    incomingTextSchema,
    incomingMediaSchema,
    incomingLocationSchema,
    incomingButtonSchema,
    incomingInteractiveSchema,
    incomingContactSchema,
    incomingReactionSchema,
    incomingCarouselSchema,
  ],
  incomingUnlistedSchema,
);
/** Schema of the incoming message payload (incomingMessageURL). */
export const incomingMessageSchema = incomingMessage.schema;
/**
 * An incoming message: one branch per documented content type, plus {@link UnlistedIncomingMessage}.
 * A `switch` on `messageContentType` narrows to the branch, with its key fields required.
 */
export type IncomingMessage = z.infer<typeof incomingMessageSchema>;
export type IncomingTextMessage = z.infer<typeof incomingTextSchema>;
export type IncomingMediaMessage = z.infer<typeof incomingMediaSchema>;
export type IncomingLocationMessage = z.infer<typeof incomingLocationSchema>;
export type IncomingButtonMessage = z.infer<typeof incomingButtonSchema>;
export type IncomingInteractiveMessage = z.infer<typeof incomingInteractiveSchema>;
export type IncomingContactMessage = z.infer<typeof incomingContactSchema>;
export type IncomingReactionMessage = z.infer<typeof incomingReactionSchema>;
export type IncomingCarouselMessage = z.infer<typeof incomingCarouselSchema>;
/** An incoming message whose content type the documentation does not list (the `default` of a switch). */
export type UnlistedIncomingMessage = z.infer<typeof incomingUnlistedSchema>;

/** What a REACTION message means, stated plainly. */
export interface Reaction {
  /** The emoji, or null when the reaction was removed. */
  readonly emoji: string | null;
  /** True when the customer removed their reaction (empty or null text). */
  readonly removed: boolean;
  /** gstId of the message that was reacted to. */
  readonly reactedToGstId: string;
}

/**
 * Reads a REACTION message: which message it targets and whether it was removed.
 * Returns undefined for any other content type.
 */
export function reactionOf(message: IncomingMessage): Reaction | undefined {
  if (message.messageContentType !== 'REACTION' || typeof message.gstId !== 'string') return undefined;
  const emoji = typeof message.text === 'string' && message.text !== '' ? message.text : null;
  return { emoji, removed: emoji === null, reactedToGstId: message.gstId };
}
