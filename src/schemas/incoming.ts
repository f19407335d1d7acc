import * as z from 'zod';
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
  // The payload table gives `text` to every message (the text, a REACTION's emoji, a CONTACT's
  // card, null for media-only), unlike the fields it marks "LOCATION only" or "MEDIA only".
  text: optionalString,
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

/**
 * The content fields the payload table gives to some content types only ("LOCATION only", "MEDIA
 * only", the tapped button of BUTTON, INTERACTIVE and CAROUSEL). A branch declares only its own,
 * so under `case 'TEXT'` a message offers `text` and not `latitude`. A field of another type that
 * arrives anyway still reaches the callback (objects pass unknown keys through), unvalidated and
 * untyped.
 */
const buttonFields = { buttonText: optionalString, buttonPayload: optionalString };
const locationFields = {
  latitude: optionalString,
  longitude: optionalString,
  label: optionalString,
  address: optionalString,
};
const mediaFields = { mediaUrl: optionalString, caption: optionalString, fileExtension: optionalString };

// Omit the base fields a branch redefines: a spread of a generic shape is an intersection, and
// intersecting two schemas of one field would type that field as `never`.
const branch = <const T extends MessageContentType, S extends z.ZodRawShape>(type: T, keyFields: S) => {
  const base: Omit<typeof incomingBaseShape, keyof S> = incomingBaseShape;
  return passthroughObject({ ...base, messageContentType: z.literal(type), ...keyFields });
};

/** Content and key fields per content type, from the content-type table of section Events. */
export const incomingTextSchema = branch('TEXT', { text: z.string() });
export const incomingMediaSchema = branch('MEDIA', { ...mediaFields, mediaUrl: z.string() });
export const incomingLocationSchema = branch('LOCATION', {
  ...locationFields,
  latitude: z.string(),
  longitude: z.string(),
});
export const incomingButtonSchema = branch('BUTTON', buttonFields);
export const incomingInteractiveSchema = branch('INTERACTIVE', buttonFields);
export const incomingContactSchema = branch('CONTACT', { text: z.string() });
/** `gstId` is the reacted-to message; empty or null `text` means the reaction was removed. */
export const incomingReactionSchema = branch('REACTION', { gstId: identifier });
export const incomingCarouselSchema = branch('CAROUSEL', buttonFields);

/**
 * An incoming message whose messageContentType the documentation does not list: the common
 * fields, every one optional but `sender`, and the content type as an {@link UnlistedValue}.
 */
export const incomingUnlistedSchema = passthroughObject({
  ...incomingBaseShape,
  ...buttonFields,
  ...locationFields,
  ...mediaFields,
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
/* eslint-disable @typescript-eslint/no-empty-object-type -- an interface over each inferred type names it in hovers and errors (it cannot drift: it is the schema's type) */
// Named interfaces over the inferred types (they cannot drift: each is its schema's type), so an
// editor's hover and an error message say `IncomingTextMessage` instead of spelling out its fields.
/** A TEXT message: `text` is a string. */
export interface IncomingTextMessage extends z.infer<typeof incomingTextSchema> {}
/** A MEDIA message (image, video, audio, document or sticker): `mediaUrl` is a string. */
export interface IncomingMediaMessage extends z.infer<typeof incomingMediaSchema> {}
/** A LOCATION message: `latitude` and `longitude` are strings. */
export interface IncomingLocationMessage extends z.infer<typeof incomingLocationSchema> {}
/** A template button tapped: `buttonText`, `buttonPayload`. */
export interface IncomingButtonMessage extends z.infer<typeof incomingButtonSchema> {}
/** A quick reply, list item or flow button: `buttonText`, `buttonPayload`. */
export interface IncomingInteractiveMessage extends z.infer<typeof incomingInteractiveSchema> {}
/** A contact card: `text` is `Contact: <name>, Phone: <number>`. */
export interface IncomingContactMessage extends z.infer<typeof incomingContactSchema> {}
/** An emoji reaction to `gstId`; empty or null `text` means it was removed (see {@link reactionOf}). */
export interface IncomingReactionMessage extends z.infer<typeof incomingReactionSchema> {}
/** A carousel card interaction: `buttonText`, `buttonPayload`. */
export interface IncomingCarouselMessage extends z.infer<typeof incomingCarouselSchema> {}
/**
 * An incoming message whose content type the documentation does not list (the `default` of a
 * switch): every content field, all optional.
 */
export interface UnlistedIncomingMessage extends z.infer<typeof incomingUnlistedSchema> {}
/* eslint-enable @typescript-eslint/no-empty-object-type */
/**
 * An incoming message: one variant per documented content type, plus {@link UnlistedIncomingMessage}.
 * A `switch` on `messageContentType` narrows to the variant, which offers only its own content
 * fields, with its key fields required.
 */
export type IncomingMessage =
  | IncomingTextMessage
  | IncomingMediaMessage
  | IncomingLocationMessage
  | IncomingButtonMessage
  | IncomingInteractiveMessage
  | IncomingContactMessage
  | IncomingReactionMessage
  | IncomingCarouselMessage
  | UnlistedIncomingMessage;

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
