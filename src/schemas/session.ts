import * as z from 'zod';
import { identifier, optionalMillis } from './fields.js';
import { openEnum } from './open-enum.js';
import { passthroughObject } from './open-union.js';

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
export const sessionStatusSchema = passthroughObject({
  messagingNumber: identifier,
  status: openEnum(SESSION_STATUS_STRINGS).nullish(),
  statusType: openEnum(SESSION_STATUS_TYPES),
  /** Unix time in milliseconds. */
  timestamp: optionalMillis,
});
/** A Lite number's session state changed (`statusType`, `status`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface names the inferred type in hovers and errors
export interface SessionStatus extends z.infer<typeof sessionStatusSchema> {}

/**
 * The statusType each documented status string belongs to, from the session status table
 * (connecting: QR scanned, pair success, connected, logged in, app-state sync in progress;
 * success: sync complete; disconnected: pair failure, connection failure, disconnected,
 * logged out, stream replaced). Strings the table does not name are placed by their meaning:
 * 'Initializing...' is a session being established, 'Logging out...' and 'No Session' mean no
 * messaging is possible.
 */
export const SESSION_STATUS_TYPE_OF = {
  'Connecting...': 'connecting',
  Connected: 'connecting',
  'Connected (Authenticated)': 'connecting',
  'Paired Successfully': 'connecting',
  'Paired Failed': 'disconnected',
  'Logged In': 'connecting',
  'Logged In Successfully': 'connecting',
  'Logged Out': 'disconnected',
  'Logged out from the system': 'disconnected',
  'Logging out...': 'disconnected',
  Disconnected: 'disconnected',
  'Disconnected by API request': 'disconnected',
  'Disconnected: Logged in on another device': 'disconnected',
  'Disconnected: QR Code timeout': 'disconnected',
  'Initializing...': 'connecting',
  'Sync Complete. You can now send messages': 'success',
  'Syncing metadata (errors occurred)...': 'connecting',
  'No Session': 'disconnected',
} as const satisfies Record<SessionStatusString, SessionStatusType>;
