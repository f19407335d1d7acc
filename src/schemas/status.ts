import { z } from 'zod';
import { identifier, optionalString } from './fields.js';
import { openEnum } from './open-enum.js';

/** Outbound message delivery states (section States and transitions). */
export const DELIVERY_STATUSES = ['ACCEPTED', 'SENT', 'DELIVERED', 'READ', 'PLAYED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Schema of the status update payload (statusUpdateURL). */
export const statusUpdateSchema = z.looseObject({
  sender: optionalString,
  receiver: optionalString,
  recipientUserId: optionalString,
  gstId: identifier,
  ctId: optionalString,
  conversationCtId: optionalString,
  status: openEnum(DELIVERY_STATUSES),
  /** Timestamps may be null (section Events, status update payload). */
  sendTime: optionalString,
  deliveryTime: optionalString,
  readTime: optionalString,
  playedTime: optionalString,
  /** Numeric code as a string; only when FAILED. */
  errorCode: optionalString,
  errorCodeString: optionalString,
  conversationId: optionalString,
  participantId: optionalString,
  cost: optionalString,
  requestId: optionalString,
  tqrmtId: optionalString,
});
export type StatusUpdate = z.infer<typeof statusUpdateSchema>;

/** One row of the outbound delivery status transition table (section States and transitions). */
export interface DeliveryTransition {
  readonly from: DeliveryStatus;
  readonly to: DeliveryStatus;
  /** Payload fields the transition sets. */
  readonly sets: readonly ('deliveryTime' | 'readTime' | 'playedTime' | 'errorCode' | 'errorCodeString')[];
  /** PLAYED: voice messages only; other types stop at READ. */
  readonly voiceOnly?: true;
}

/** The documented transitions; ACCEPTED is the initial state. FAILED is terminal, with no retry. */
export const DELIVERY_TRANSITIONS: readonly DeliveryTransition[] = [
  { from: 'ACCEPTED', to: 'SENT', sets: [] },
  { from: 'SENT', to: 'DELIVERED', sets: ['deliveryTime'] },
  { from: 'DELIVERED', to: 'READ', sets: ['readTime'] },
  { from: 'READ', to: 'PLAYED', sets: ['playedTime'], voiceOnly: true },
  { from: 'SENT', to: 'FAILED', sets: ['errorCode', 'errorCodeString'] },
];

/** The forward order of the non-failure states: ACCEPTED < SENT < DELIVERED < READ < PLAYED. */
export const DELIVERY_PROGRESS: readonly DeliveryStatus[] = [
  'ACCEPTED',
  'SENT',
  'DELIVERED',
  'READ',
  'PLAYED',
];

/** Finds the documented transition from one state to another, if there is one. */
export function findDeliveryTransition(
  from: DeliveryStatus,
  to: DeliveryStatus,
): DeliveryTransition | undefined {
  return DELIVERY_TRANSITIONS.find((t) => t.from === from && t.to === to);
}
