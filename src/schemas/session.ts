import { z } from 'zod';
import { identifier, optionalMillis } from './fields.js';
import { openEnum } from './open-enum.js';

/** statusType values of the session status payload. */
export const SESSION_STATUS_TYPES = ['connecting', 'success', 'disconnected'] as const;
export type SessionStatusType = (typeof SESSION_STATUS_TYPES)[number];

/** The documented descriptive `status` strings of the session status payload. */
export const SESSION_STATUS_STRINGS = [
  'Connecting...',
  'Connected',
  'Connected (Authenticated)',
  'Paired Successfully',
  'Paired Failed',
  'Logged In',
  'Logged In Successfully',
  'Logged Out',
  'Logged out from the system',
  'Logging out...',
  'Disconnected',
  'Disconnected by API request',
  'Disconnected: Logged in on another device',
  'Disconnected: QR Code timeout',
  'Initializing...',
  'Sync Complete. You can now send messages',
  'Syncing metadata (errors occurred)...',
  'No Session',
] as const;
export type SessionStatusString = (typeof SESSION_STATUS_STRINGS)[number];

/** Schema of the session status payload (sessionStatusURL; Lite numbers only). */
export const sessionStatusSchema = z.looseObject({
  messagingNumber: identifier,
  status: openEnum(SESSION_STATUS_STRINGS).nullish(),
  statusType: openEnum(SESSION_STATUS_TYPES),
  /** Unix time in milliseconds. */
  timestamp: optionalMillis,
});
export type SessionStatus = z.infer<typeof sessionStatusSchema>;
