import * as z from 'zod';
import { identifier, optionalMillis, optionalString } from './fields.js';
import { openEnum } from './open-enum.js';
import { openDiscriminatedUnion, passthroughObject, unlistedValue } from './open-union.js';

/** eventType values of the partner event payload (eventWebhookURL). */
export const PARTNER_EVENT_TYPES = [
  'PHONE_QUALITY_CHANGED',
  'TEMPLATE_STATUS_CHANGED',
  'TEMPLATE_QUALITY_CHANGED',
  'TEMPLATE_COMPONENTS_CHANGED',
  'USER_PREFERENCE',
  'USER_CHANGED_NUMBER',
] as const;
export type PartnerEventType = (typeof PARTNER_EVENT_TYPES)[number];

export const QUALITY_RATINGS = ['GREEN', 'YELLOW', 'RED'] as const;
export const MESSAGING_LIMIT_TIERS = ['TIER_1K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'] as const;
export const CHANNEL_STATUSES = ['CONNECTED', 'DISCONNECTED', 'FLAGGED', 'RESTRICTED'] as const;
export const TEMPLATE_STATUSES = ['APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
export const TEMPLATE_QUALITY_SCORES = ['GREEN', 'YELLOW', 'RED', 'UNKNOWN'] as const;
export const TEMPLATE_ELEMENTS = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'] as const;
export const PREFERENCE_VALUES = ['stop', 'resume'] as const;

/** Common fields on every partner event. */
const partnerBaseShape = {
  messagingNumber: optionalString,
  /** Unix time in milliseconds. */
  timestamp: optionalMillis,
};

const branch = <const T extends PartnerEventType, S extends z.ZodRawShape>(type: T, fields: S) =>
  passthroughObject({ ...partnerBaseShape, eventType: z.literal(type), ...fields });

export const phoneQualityChangedSchema = branch('PHONE_QUALITY_CHANGED', {
  qualityRating: openEnum(QUALITY_RATINGS).nullish(),
  messagingLimitTier: openEnum(MESSAGING_LIMIT_TIERS).nullish(),
  channelStatus: openEnum(CHANNEL_STATUSES).nullish(),
});
export const templateStatusChangedSchema = branch('TEMPLATE_STATUS_CHANGED', {
  templateName: identifier,
  templateStatus: openEnum(TEMPLATE_STATUSES).nullish(),
  /** Only when REJECTED. */
  rejectedReason: optionalString,
});
export const templateQualityChangedSchema = branch('TEMPLATE_QUALITY_CHANGED', {
  templateName: identifier,
  previousQualityScore: openEnum(TEMPLATE_QUALITY_SCORES).nullish(),
  newQualityScore: openEnum(TEMPLATE_QUALITY_SCORES).nullish(),
});
export const templateComponentsChangedSchema = branch('TEMPLATE_COMPONENTS_CHANGED', {
  templateName: identifier,
  templateLanguage: optionalString,
  templateElement: openEnum(TEMPLATE_ELEMENTS).nullish(),
});
/** On a `stop` preference the receiver must stop marketing messages to that user. */
export const userPreferenceSchema = branch('USER_PREFERENCE', {
  /** Phone number without +. */
  waId: identifier,
  category: optionalString,
  preferenceValue: openEnum(PREFERENCE_VALUES),
});
export const userChangedNumberSchema = branch('USER_CHANGED_NUMBER', {
  oldNumber: identifier,
  newNumber: identifier,
});
/** A partner event whose eventType the documentation does not list. */
export const partnerUnlistedSchema = passthroughObject({
  ...partnerBaseShape,
  eventType: unlistedValue(PARTNER_EVENT_TYPES),
});

export const partnerEvent = openDiscriminatedUnion(
  'eventType',
  [
    phoneQualityChangedSchema,
    templateStatusChangedSchema,
    templateQualityChangedSchema,
    templateComponentsChangedSchema,
    userPreferenceSchema,
    userChangedNumberSchema,
  ],
  partnerUnlistedSchema,
);
/** Schema of the partner event payload (eventWebhookURL). */
export const partnerEventSchema = partnerEvent.schema;
/**
 * A partner event: one branch per documented eventType, plus {@link UnlistedPartnerEvent}. A
 * branch's fields exist only on it: narrow on `eventType` before reading `waId` or `templateName`.
 */
export type PartnerEvent =
  | PhoneQualityChangedEvent
  | TemplateStatusChangedEvent
  | TemplateQualityChangedEvent
  | TemplateComponentsChangedEvent
  | UserPreferenceEvent
  | UserChangedNumberEvent
  | UnlistedPartnerEvent;
/* eslint-disable @typescript-eslint/no-empty-object-type -- an interface over each inferred type names it in hovers and errors (it cannot drift: it is the schema's type) */
/** PHONE_QUALITY_CHANGED. */
export interface PhoneQualityChangedEvent extends z.infer<typeof phoneQualityChangedSchema> {}
/** TEMPLATE_STATUS_CHANGED. */
export interface TemplateStatusChangedEvent extends z.infer<typeof templateStatusChangedSchema> {}
/** TEMPLATE_QUALITY_CHANGED. */
export interface TemplateQualityChangedEvent extends z.infer<typeof templateQualityChangedSchema> {}
/** TEMPLATE_COMPONENTS_CHANGED. */
export interface TemplateComponentsChangedEvent extends z.infer<typeof templateComponentsChangedSchema> {}
/** USER_PREFERENCE: `waId` and `preferenceValue` (`stop`, `resume`). */
export interface UserPreferenceEvent extends z.infer<typeof userPreferenceSchema> {}
/** USER_CHANGED_NUMBER: `oldNumber`, `newNumber`. */
export interface UserChangedNumberEvent extends z.infer<typeof userChangedNumberSchema> {}
/** A partner event whose eventType the documentation does not list (the `default` of a switch). */
export interface UnlistedPartnerEvent extends z.infer<typeof partnerUnlistedSchema> {}
/* eslint-enable @typescript-eslint/no-empty-object-type */
