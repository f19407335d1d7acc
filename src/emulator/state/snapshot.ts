import { z } from 'zod';
import {
  chatParticipantRecordSchema,
  clientRecordSchema,
  mediaRecordSchema,
  numberRecordSchema,
  outboundMessageRecordSchema,
  ratingWidgetRecordSchema,
  sessionRecordSchema,
  teamRecordSchema,
  userRecordSchema,
  webhookConfigRecordSchema,
} from './records.js';
import { emulatorTimeSchema } from '../clock.js';
import { MAX_SNAPSHOT_DEPTH, nestedTooDeep } from './nesting.js';
import { createEmptyState, StateConflictError, type EmulatorState, type RetentionOptions } from './store.js';

/*
 * Snapshots: the whole state as JSON, and back. A snapshot lists every record as the state holds
 * it (users with their credentials, chats with their conversation ids), each list in creation
 * order, and the clock. It is what `emulator.snapshot()` returns, `createEmulator({ state })`,
 * `emulator.restore()` and `POST /_emulator/state` take, and the CLI's --state/--save-state read
 * and write. Not in it: the delivery log and the faults (what was sent, not the platform's state).
 */

/** The snapshot format's version: a snapshot of another version is refused, not guessed at. */
export const SNAPSHOT_VERSION = 1;

/** An emulator snapshot: validated on the way in; every list may be omitted (empty). */
export const emulatorSnapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  /** The emulator clock, Unix ms. @default the clock is left where it is */
  clock: emulatorTimeSchema.optional(),
  clients: z.array(clientRecordSchema).default([]),
  teams: z.array(teamRecordSchema).default([]),
  users: z.array(userRecordSchema).default([]),
  /** Numbers, each with its session (Lite numbers; null for Cloud numbers). */
  numbers: z
    .array(numberRecordSchema.extend({ session: sessionRecordSchema.nullable().default(null) }))
    .default([]),
  webhookConfigs: z.array(webhookConfigRecordSchema).default([]),
  chatParticipants: z.array(chatParticipantRecordSchema).default([]),
  messages: z.array(outboundMessageRecordSchema).default([]),
  ratingWidgets: z.array(ratingWidgetRecordSchema).default([]),
  /** Uploaded media files (Upload media for an agent message, v2), their bytes base64. */
  media: z.array(mediaRecordSchema).default([]),
  /**
   * The API keys the inspector page shows: those of the seed the emulator started from (a key
   * made later is a credential, not a fixture). @default every user's (the snapshot is the seed)
   */
  seedKeys: z.array(z.object({ userId: z.string(), apiKey: z.string() })).optional(),
  /**
   * Set on a snapshot served with its credentials masked (`GET /_emulator/snapshot` without
   * `?reveal=keys`): it cannot be restored, its keys and passwords are gone.
   */
  masked: z.literal(true).optional(),
});
/** A snapshot as given (lists optional). */
export type EmulatorSnapshotInput = z.input<typeof emulatorSnapshotSchema>;
/** A snapshot as `emulator.snapshot()` returns it. */
export type EmulatorSnapshot = z.output<typeof emulatorSnapshotSchema>;

/** Thrown for a snapshot that does not validate; `path` names the field (`users.2.apiKey`). */
export class SnapshotError extends TypeError {
  override readonly name = 'SnapshotError';
  constructor(
    message: string,
    readonly path: string,
    options?: ErrorOptions,
  ) {
    super(`Invalid emulator state at ${path === '' ? '(root)' : path}: ${message}`, options);
  }
}

/** The state's records as a snapshot (plain JSON values, nothing shared with the state). */
export function takeSnapshot(state: EmulatorState, clock: number): EmulatorSnapshot {
  return structuredClone(snapshotRecords(state, clock));
}

/** The state's records in snapshot form, the records themselves (not copies). */
export function snapshotRecords(state: EmulatorState, clock: number): EmulatorSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    clock,
    clients: [...state.clients.values()],
    teams: [...state.teams.values()],
    users: [...state.users.values()],
    numbers: [...state.numbers.values()].map((number) => ({
      ...number,
      session: state.sessions.get(number.id) ?? null,
    })),
    webhookConfigs: [...state.webhookConfigs.values()],
    chatParticipants: [...state.listings.chatParticipants.values()],
    messages: [...state.listings.messages.values()],
    ratingWidgets: [...state.listings.ratingWidgets.values()],
    media: [...state.listings.media.values()],
  };
}

/**
 * Validates `input` as a snapshot: its nesting (no deeper than {@link MAX_SNAPSHOT_DEPTH}), its
 * shape (zod) and its references (every clientId, numberId, team and agent id names a record of
 * the snapshot; ids, API keys, msisdns, live e-mails and open chats per customer and number
 * unique; one configuration per scope), by loading it into a scratch state with `retention` (the
 * emulator's own, so what passes here loads there). Returns the parsed snapshot; throws
 * {@link SnapshotError} naming the first problem.
 */
export function parseSnapshot(input: unknown, retention?: RetentionOptions): EmulatorSnapshot {
  return loadSnapshotState(input, retention).snapshot;
}

/**
 * {@link parseSnapshot}, also returning the scratch state it loaded: a whole new state, for a
 * restore to swap in once nothing can fail any more.
 */
export function loadSnapshotState(
  input: unknown,
  retention?: RetentionOptions,
): { readonly snapshot: EmulatorSnapshot; readonly state: EmulatorState } {
  const deep = nestedTooDeep(input, MAX_SNAPSHOT_DEPTH);
  if (deep !== undefined) {
    throw new SnapshotError(`nested deeper than ${MAX_SNAPSHOT_DEPTH} levels`, shortPath(deep));
  }
  const parsed = emulatorSnapshotSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SnapshotError(issue?.message ?? 'invalid', issue?.path.map(String).join('.') ?? '');
  }
  if (parsed.data.masked === true) {
    throw new SnapshotError(
      'this snapshot has its API keys and passwords masked (GET /_emulator/snapshot without ?reveal=keys); take it with GET /_emulator/snapshot?reveal=keys to restore it',
      'masked',
    );
  }
  // a scratch state checks every reference and uniqueness rule, as loading would
  const state = createEmptyState(retention);
  loadSnapshot(state, parsed.data);
  return { snapshot: parsed.data, state };
}

/** A path cut to its first segments (a too-deep one runs to dozens of `0`s). */
function shortPath(path: string): string {
  const segments = path.split('.');
  return segments.length <= 8 ? path : `${segments.slice(0, 8).join('.')}…`;
}

/**
 * Adds a parsed snapshot's records to `state` (an empty one: see {@link parseSnapshot}).
 * The records are taken as they are, not copied.
 */
export function loadSnapshot(state: EmulatorState, snapshot: EmulatorSnapshot): void {
  let path = '';
  const refer = (exists: boolean, field: string, what: string): void => {
    if (!exists) throw new SnapshotError(`unknown ${what}`, `${path}.${field}`);
  };
  try {
    snapshot.clients.forEach((client, i) => {
      path = `clients.${i}`;
      state.addClient(client);
    });
    snapshot.teams.forEach((team, i) => {
      path = `teams.${i}`;
      refer(state.clients.has(team.clientId), 'clientId', `client ${team.clientId}`);
      state.addTeam(team);
    });
    snapshot.users.forEach((user, i) => {
      path = `users.${i}`;
      refer(state.clients.has(user.clientId), 'clientId', `client ${user.clientId}`);
      user.teamIds.forEach((teamId, t) => refer(state.teams.has(teamId), `teamIds.${t}`, `team ${teamId}`));
      state.addUser(user);
    });
    snapshot.numbers.forEach(({ session, ...number }, i) => {
      path = `numbers.${i}`;
      refer(state.clients.has(number.clientId), 'clientId', `client ${number.clientId}`);
      if (session !== null && number.kind !== 'lite') {
        throw new SnapshotError('only Lite numbers have a session', `${path}.session`);
      }
      state.addNumber(number, session);
    });
    snapshot.webhookConfigs.forEach((config, i) => {
      path = `webhookConfigs.${i}`;
      refer(state.clients.has(config.clientId), 'clientId', `client ${config.clientId}`);
      if (config.messagingNumberId !== null) {
        const number = state.numberByMessagingNumberId(config.messagingNumberId);
        refer(
          number?.clientId === config.clientId,
          'messagingNumberId',
          `messaging number ${config.messagingNumberId} of client ${config.clientId}`,
        );
      }
      if (state.webhookConfigs.has(config.id)) throw new StateConflictError(`id ${config.id} is used twice`);
      state.putWebhookConfig(config);
    });
    snapshot.chatParticipants.forEach((chat, i) => {
      path = `chatParticipants.${i}`;
      const number = state.numbers.get(chat.numberId);
      refer(
        number?.clientId === chat.clientId,
        'numberId',
        `number ${chat.numberId} of client ${chat.clientId}`,
      );
      for (const field of ['assignedTo', 'lastAssignedAgent'] as const) {
        const userId = chat[field];
        if (userId !== null) refer(state.users.has(userId), field, `user ${userId}`);
      }
      if (chat.team !== null) refer(state.teams.has(chat.team), 'team', `team ${chat.team}`);
      state.addChatParticipant(chat);
    });
    snapshot.messages.forEach((message, i) => {
      path = `messages.${i}`;
      refer(
        state.numbers.get(message.numberId)?.clientId === message.clientId,
        'numberId',
        `number ${message.numberId} of client ${message.clientId}`,
      );
      state.addMessage(message);
    });
    snapshot.ratingWidgets.forEach((widget, i) => {
      path = `ratingWidgets.${i}`;
      state.addRatingWidget(widget);
    });
    snapshot.media.forEach((record, i) => {
      path = `media.${i}`;
      refer(state.clients.has(record.clientId), 'clientId', `client ${record.clientId}`);
      state.addMedia(record);
    });
  } catch (error) {
    if (error instanceof StateConflictError) throw new SnapshotError(error.message, path, { cause: error });
    throw error;
  }
}
