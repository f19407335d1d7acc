import * as z from 'zod';
import {
  CHANNEL_STATUSES,
  MESSAGING_LIMIT_TIERS,
  PREFERENCE_VALUES,
  QUALITY_RATINGS,
  TEMPLATE_ELEMENTS,
  TEMPLATE_QUALITY_SCORES,
  TEMPLATE_STATUSES,
  type PartnerEventType,
} from './partner.js';

/*
 * The documented contract, closed: the formats and value sets the interface documentation gives
 * for fields the payload schemas accept openly. A receiver tolerates what the platform may add
 * later (open enums); a sender that keeps to the documentation, like the emulator's triggers,
 * checks against these. Same enum tables as the payload schemas: one source of truth.
 */

const nonEmpty = z.string().min(1);

/** E.164: a + and 2 to 15 digits, no leading zero (documented: "customer phone number, E.164"). */
export const e164PhoneSchema = z
  .string()
  .regex(/^\+[1-9]\d{1,14}$/, 'Expected an E.164 phone number (+ and 2-15 digits), e.g. +27831234567');

/** A field the documentation types as UUID (e.g. the chatbot payload's templateId). */
export const documentedUuidSchema = z.uuid('Expected a UUID (the documentation types it as UUID)');

/**
 * The extra fields of each eventType (table "Partner event payloads"), with their documented
 * values; "only fields relevant to the event are present", so any other field is refused.
 */
export const PARTNER_EVENT_FIELDS = {
  PHONE_QUALITY_CHANGED: {
    qualityRating: z.enum(QUALITY_RATINGS).optional(),
    messagingLimitTier: z.enum(MESSAGING_LIMIT_TIERS).optional(),
    channelStatus: z.enum(CHANNEL_STATUSES).optional(),
  },
  TEMPLATE_STATUS_CHANGED: {
    templateName: nonEmpty,
    templateStatus: z.enum(TEMPLATE_STATUSES),
    /** Only when REJECTED. */
    rejectedReason: z.string().optional(),
  },
  TEMPLATE_QUALITY_CHANGED: {
    templateName: nonEmpty,
    previousQualityScore: z.enum(TEMPLATE_QUALITY_SCORES).optional(),
    newQualityScore: z.enum(TEMPLATE_QUALITY_SCORES).optional(),
  },
  TEMPLATE_COMPONENTS_CHANGED: {
    templateName: nonEmpty,
    templateLanguage: nonEmpty.optional(),
    templateElement: z.enum(TEMPLATE_ELEMENTS).optional(),
  },
  USER_PREFERENCE: {
    /** Documented: "phone number without +". */
    waId: z.string().regex(/^[1-9]\d{1,14}$/, 'Expected a phone number without +, e.g. 27831234567'),
    category: nonEmpty.optional(),
    preferenceValue: z.enum(PREFERENCE_VALUES),
  },
  USER_CHANGED_NUMBER: { oldNumber: nonEmpty, newNumber: nonEmpty },
} as const satisfies Record<PartnerEventType, z.ZodRawShape>;
