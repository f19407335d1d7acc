import * as z from 'zod';
import { identifier, optionalString } from './fields.js';
import { openDiscriminatedUnion, passthroughObject, unlistedValue } from './open-union.js';

/** Outbound message delivery states (section States and transitions). */
export const DELIVERY_STATUSES = ['ACCEPTED', 'SENT', 'DELIVERED', 'READ', 'PLAYED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Fields every status receipt may carry, whatever its status. */
const statusBaseShape = {
  sender: optionalString,
  receiver: optionalString,
  recipientUserId: optionalString,
  gstId: identifier,
  ctId: optionalString,
  conversationCtId: optionalString,
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
};

// Omit the base fields a branch redefines (see incoming.ts: an intersection would make them never).
const branch = <const T extends DeliveryStatus, S extends z.ZodRawShape>(status: T, keyFields: S) => {
  const base: Omit<typeof statusBaseShape, keyof S> = statusBaseShape;
  return passthroughObject({ ...base, status: z.literal(status), ...keyFields });
};

/** One schema per delivery state; the timestamps stay optional because they may be null. */
export const statusAcceptedSchema = branch('ACCEPTED', {});
export const statusSentSchema = branch('SENT', {});
export const statusDeliveredSchema = branch('DELIVERED', {});
export const statusReadSchema = branch('READ', {});
export const statusPlayedSchema = branch('PLAYED', {});
/** FAILED: "errorCode and errorCodeString set" (transition table). */
export const statusFailedSchema = branch('FAILED', { errorCode: z.string(), errorCodeString: z.string() });
/** A status receipt whose status the documentation does not list. */
export const statusUnlistedSchema = passthroughObject({
  ...statusBaseShape,
  status: unlistedValue(DELIVERY_STATUSES),
});

export const statusUpdate = openDiscriminatedUnion(
  'status',
  [
    statusAcceptedSchema,
    statusSentSchema,
    statusDeliveredSchema,
    statusReadSchema,
    statusPlayedSchema,
    statusFailedSchema,
  ],
  statusUnlistedSchema,
);
/** Schema of the status update payload (statusUpdateURL). */
export const statusUpdateSchema = statusUpdate.schema;
/* eslint-disable @typescript-eslint/no-empty-object-type -- an interface over each inferred type names it in hovers and errors (it cannot drift: it is the schema's type) */
/** An ACCEPTED receipt. */
export interface AcceptedStatusUpdate extends z.infer<typeof statusAcceptedSchema> {}
/** A SENT receipt. */
export interface SentStatusUpdate extends z.infer<typeof statusSentSchema> {}
/** A DELIVERED receipt. */
export interface DeliveredStatusUpdate extends z.infer<typeof statusDeliveredSchema> {}
/** A READ receipt. */
export interface ReadStatusUpdate extends z.infer<typeof statusReadSchema> {}
/** A PLAYED receipt. */
export interface PlayedStatusUpdate extends z.infer<typeof statusPlayedSchema> {}
/** A FAILED receipt: `errorCode` and `errorCodeString` are strings. */
export interface FailedStatusUpdate extends z.infer<typeof statusFailedSchema> {}
/** A status receipt whose status the documentation does not list (the `default` of a switch). */
export interface UnlistedStatusUpdate extends z.infer<typeof statusUnlistedSchema> {}
/* eslint-enable @typescript-eslint/no-empty-object-type */
/**
 * A status receipt: one branch per documented status, plus {@link UnlistedStatusUpdate}.
 * Under `case 'FAILED'`, `errorCode` and `errorCodeString` are strings.
 */
export type StatusUpdate =
  | AcceptedStatusUpdate
  | SentStatusUpdate
  | DeliveredStatusUpdate
  | ReadStatusUpdate
  | PlayedStatusUpdate
  | FailedStatusUpdate
  | UnlistedStatusUpdate;

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
