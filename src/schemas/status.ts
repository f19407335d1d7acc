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
