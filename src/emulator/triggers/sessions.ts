import { z } from 'zod';
import {
  SESSION_STATUS_STRINGS,
  SESSION_STATUS_TYPE_OF,
  SESSION_STATUS_TYPES,
  type SessionStatusString,
  type SessionStatusType,
} from '../../schemas/index.js';
import { MAX_EMULATOR_TIME } from '../clock.js';
import {
  BadRequestError,
  IllegalTransitionError,
  NumberFlaggedError,
  SessionNotSupportedError,
} from '../errors.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import { buildSessionPayload } from '../emit/payloads.js';
import { parseBody } from '../http/validate.js';
import type { EmulatorNumber, EmulatorState, SessionState } from '../state/index.js';
import { faults, ref, type TriggerContext } from './common.js';
import { defined } from '../emit/chat-events.js';
import { numberOf } from './lookups.js';

/** The longest documented flag period: "up to 24 hours". */
export const MAX_FLAG_PERIOD_MS = 24 * 60 * 60 * 1000;

/** Input of {@link Triggers.sessionChange}: a Lite number's session changes. */
export const sessionChangeInputSchema = z
  .object({
    number: ref,
    /** A documented status string; its statusType follows from the session status table. */
    status: z.enum(SESSION_STATUS_STRINGS).optional(),
    /** Alternatively a statusType alone; the status string is the canonical one for it. */
    statusType: z.enum(SESSION_STATUS_TYPES).optional(),
    faults,
  })
  .refine((input) => input.status !== undefined || input.statusType !== undefined, {
    message: 'Give status (a documented status string) or statusType',
    path: ['status'],
  });
export type SessionChangeInput = z.input<typeof sessionChangeInputSchema>;

/** Input of {@link Triggers.flagNumber}: the number violated the provider's terms. */
export const flagNumberInputSchema = z.object({
  number: ref,
  /** Flag period on the emulator clock, at most 24 hours. @default 24 h */
  durationMs: z.number().int().min(1).max(MAX_FLAG_PERIOD_MS).default(MAX_FLAG_PERIOD_MS),
  faults,
});
export type FlagNumberInput = z.input<typeof flagNumberInputSchema>;

/** The canonical status string per statusType, when only a statusType is given. */
const CANONICAL_SESSION_STATUS: Readonly<Record<SessionStatusType, SessionStatusString>> = {
  connecting: 'Connecting...',
  success: 'Sync Complete. You can now send messages',
  disconnected: 'Disconnected',
};

/** Result of {@link Triggers.sessionChange} and {@link Triggers.flagNumber}. */
export interface SessionResult {
  readonly number: string;
  readonly status: string;
  readonly statusType: SessionStatusType;
  readonly flaggedUntil: number | null;
  readonly deliveries: readonly DeliveryLogEntry[];
}

/** The number's session: only Lite numbers have one. */
function liteSessionOf(state: EmulatorState, number: EmulatorNumber): SessionState {
  const session = state.sessions.get(number.id);
  if (number.kind === 'lite' && session !== undefined) return session;
  throw new SessionNotSupportedError(
    `Number ${number.messagingNumber.number} is a Cloud number: only Lite numbers have sessions`,
  );
}

/** Moves a Lite number's session to `status` (the session transition table) and emits the session event. */
function changeSession(
  { state, clock, emitter }: TriggerContext,
  number: EmulatorNumber,
  status: SessionStatusString,
  faultList: z.output<typeof faults>,
): SessionResult {
  const session = liteSessionOf(state, number);
  const statusType: SessionStatusType = SESSION_STATUS_TYPE_OF[status];
  const now = clock.now();
  if (statusType !== 'disconnected' && session.flaggedUntil !== null && now < session.flaggedUntil) {
    throw new NumberFlaggedError(
      `Number ${number.messagingNumber.number} is flagged until ${new Date(session.flaggedUntil).toISOString()} and cannot reconnect`,
      { details: { flaggedUntil: session.flaggedUntil } },
    );
  }
  // session transition table: (start) -> connecting -> success | disconnected
  if (statusType === 'success' && session.statusType !== 'connecting') {
    throw new IllegalTransitionError(
      `Session of ${number.messagingNumber.number} cannot go from ${session.statusType ?? '(start)'} to success: success follows connecting`,
    );
  }
  if (statusType === 'disconnected' && session.statusType === null) {
    throw new IllegalTransitionError(
      `Session of ${number.messagingNumber.number} has not started: (start) goes to connecting`,
    );
  }
  session.statusType = statusType;
  session.status = status;
  const payload = buildSessionPayload(number.messagingNumber.number, status, statusType, now);
  const delivery = emitter.emit('session', number, payload, { faults: faultList });
  return {
    number: number.messagingNumber.number,
    status,
    statusType,
    flaggedUntil: session.flaggedUntil,
    deliveries: [delivery].filter(defined),
  };
}

/** The session triggers of Lite numbers: a session change, and a flag that disconnects one. */
export function sessionTriggers(context: TriggerContext) {
  const { state, clock } = context;
  return {
    sessionChange(raw: unknown): SessionResult {
      const input = parseBody(sessionChangeInputSchema, raw);
      const number = numberOf(state, input.number, 'number');
      const status = input.status ?? CANONICAL_SESSION_STATUS[input.statusType ?? 'connecting'];
      if (input.statusType !== undefined && SESSION_STATUS_TYPE_OF[status] !== input.statusType) {
        throw new BadRequestError(
          `status "${status}" is of statusType ${SESSION_STATUS_TYPE_OF[status]}, not ${input.statusType}`,
          { field: 'statusType' },
        );
      }
      return changeSession(context, number, status, input.faults);
    },

    flagNumber(raw: unknown): SessionResult {
      const input = parseBody(flagNumberInputSchema, raw);
      const number = numberOf(state, input.number, 'number');
      const session = liteSessionOf(state, number);
      // within the times a Date holds, however late the clock is
      session.flaggedUntil = Math.min(clock.now() + input.durationMs, MAX_EMULATOR_TIME);
      if (session.statusType === null) {
        // nothing to disconnect: the flag alone stops it from connecting
        return {
          number: number.messagingNumber.number,
          status: 'No Session',
          statusType: 'disconnected',
          flaggedUntil: session.flaggedUntil,
          deliveries: [],
        };
      }
      return changeSession(context, number, 'Disconnected', input.faults);
    },
  };
}
