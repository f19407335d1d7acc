import { z } from 'zod';
import { PARTNER_EVENT_TYPES, type PartnerEventType } from '../../schemas/index.js';
import { PARTNER_EVENT_FIELDS } from '../../schemas/trigger-contract.js';
import { MAX_EMULATOR_TIME } from '../clock.js';
import { BadRequestError } from '../errors.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import type { Payload } from '../emit/payloads.js';
import { parseBody } from '../http/validate.js';
import { faults, ref, undocumented, type TriggerContext } from './common.js';
import { defined } from '../emit/chat-events.js';
import { numberOf } from './lookups.js';

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

/** Result of {@link Triggers.partnerEvent}. */
export interface PartnerEventResult {
  readonly deliveries: readonly DeliveryLogEntry[];
  readonly payload: Payload;
}

/** The partner event trigger: an event of a documented eventType, or any with `undocumented: true`. */
export function partnerEventTriggers({ state, clock, emitter }: TriggerContext) {
  return {
    partnerEvent(raw: unknown): PartnerEventResult {
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
      const number = numberOf(state, messagingNumber, 'messagingNumber');
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
