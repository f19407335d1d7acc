import { newId } from '../ids.js';
import type { z } from 'zod';
import {
  ALWAYS_COPIED_PARTICIPANT_FLAGS,
  chatParticipantTerminateSchema,
  type SystemUser,
  type UserResponse,
} from '../../schemas/index.js';
import { renderChatParticipant } from '../../schemas/resources.js';
import type { EmulatorContext, PlatformHandlers } from '../context.js';
import { BadRequestError, ConflictError, IllegalTransitionError, NotFoundError } from '../errors.js';
import {
  chatParticipantSeedSchema,
  type EmulatorChatParticipant,
  type EmulatorState,
  type EmulatorUser,
  type RatingWidgetTrigger,
} from '../state/index.js';
import { toSystemUser, toUserResponse } from './users.js';
import { participantOfClient } from '../triggers/lookups.js';

/**
 * The body fields merged by rule 1: every field of the request schema but the id, the agents
 * and rule 3's flags. Its booleans (unread, rated, expectingRating) are not covered by the
 * documentation; the emulator treats them like rule 1: a non-null value is stored, null or
 * omitted keeps the stored one.
 */
const MERGED_FIELDS = Object.keys(chatParticipantTerminateSchema.shape).filter(
  (field) => !['id', 'assignedTo', 'lastAssignedAgent', ...ALWAYS_COPIED_PARTICIPANT_FLAGS].includes(field),
);

/**
 * The fields a chat may have unset (null in the record) that the resource renders as '' (the
 * table types them as plain strings): username, email, team, openedBy, ... A '' sent back in a
 * terminate body leaves them unset, so fetching and sending back (rule 4) changes nothing.
 */
const UNSET_AS_EMPTY = new Set(
  Object.entries(chatParticipantSeedSchema.shape)
    .filter(([, schema]) => schema.safeParse(null).success)
    .map(([field]) => field),
);

/**
 * Renders a stored participant: for the deprecated terminateChatParticipantChat, the one
 * operation that returns assignedTo/lastAssignedAgent as credential-bearing SystemUser objects
 * (it takes the whole object back, merge rule 4), with `toSystemUser`; for GET ChatParticipant
 * and the v2 operations (Authentication point 7: credentials come only from deprecated
 * operations) with `toUserResponse`.
 */
function renderParticipant<U extends SystemUser | UserResponse>(
  state: EmulatorState,
  participant: EmulatorChatParticipant,
  renderUser: (state: EmulatorState, user: EmulatorUser) => U,
) {
  return renderChatParticipant(participant, (userId) => {
    const user = state.users.get(userId);
    return user === undefined ? null : renderUser(state, user);
  });
}

/**
 * Rating widgets triggered so far and kept (see retention), oldest first: one participant's
 * (by its index), or all of them.
 */
export function ratingWidgetTriggers(
  state: EmulatorState,
  chatParticipantId?: string,
): RatingWidgetTrigger[] {
  return chatParticipantId === undefined
    ? [...state.listings.ratingWidgets.values()]
    : [...state.ratingWidgetsOf(chatParticipantId)];
}

function agentOfClient(state: EmulatorState, clientId: string, id: string, field: string): EmulatorUser {
  const user = state.users.get(id);
  if (user?.clientId !== clientId) throw new NotFoundError(`No user ${id} for this client`, { field });
  return user;
}

/** 409 when reopening would give the customer a second open chat on the same number. */
function assertReopenable(state: EmulatorState, participant: EmulatorChatParticipant): void {
  const open = state.openChat(participant.numberId, participant.sender);
  if (open !== undefined && open.id !== participant.id) {
    throw new ConflictError(
      `Cannot reopen chat ${participant.id}: the customer already has an open chat (${open.id}) on this number`,
      { details: { openChatParticipantId: open.id } },
    );
  }
}

/**
 * Closure side effects of an open → closed transition: terminatedBy is the actor; with
 * sendRatingWidget true (rule 5) assignedTo moves to lastAssignedAgent, expectingRating
 * becomes true and a rating widget is recorded.
 */
function onTerminated(
  state: EmulatorState,
  participant: EmulatorChatParticipant,
  actor: EmulatorUser,
  operation: RatingWidgetTrigger['operation'],
  now: Date,
): void {
  participant.terminatedBy = actor.email;
  if (!participant.sendRatingWidget) return;
  if (participant.assignedTo !== null) {
    participant.lastAssignedAgent = participant.assignedTo;
    state.setAssignedTo(participant, null);
  }
  participant.expectingRating = true;
  const trigger: RatingWidgetTrigger = {
    id: newId(),
    chatParticipantId: participant.id,
    agentId: participant.lastAssignedAgent,
    triggeredBy: actor.email,
    operation,
    time: now.toISOString(),
  };
  state.addRatingWidget(trigger);
}

/**
 * terminateChatParticipantChat, merge rules 1–5 applied to `participant` in place:
 *
 * 1. Non-null string and object fields are merged; null or omitted ones are preserved.
 * 2. assignedTo omitted or null clears the agent assignment.
 * 3. conversationClosed, missedConversation, afterHoursConversation, sendRatingWidget and
 *    chatBotConversation are copied; omitted (or null) becomes false — so a body without
 *    conversationClosed reopens the chat.
 * 4. (Usage) fetch, toggle conversationClosed, send the whole object back.
 * 5. On the open → closed transition with sendRatingWidget true, after the merge: assignedTo
 *    moves to lastAssignedAgent, expectingRating becomes true, the rating widget is triggered.
 *
 * Fields the emulator keeps as its own (the participant's identity and routing): id,
 * clientRef, messagingClientNumber, sender, phoneNumber, userId, createdTime. Everything is
 * validated before anything changes, so a 4xx leaves the participant untouched.
 */
function applyTerminateRequest(
  state: EmulatorState,
  participant: EmulatorChatParticipant,
  request: z.output<typeof chatParticipantTerminateSchema>,
  actor: EmulatorUser,
  now: Date,
): void {
  const wasClosed = participant.conversationClosed;
  const willBeClosed = request.conversationClosed ?? false;
  // validate first; team '' is no team (GET renders a chat without one so: rule 4 sends it back)
  if (
    typeof request.team === 'string' &&
    request.team !== '' &&
    state.teams.get(request.team)?.clientId !== participant.clientId
  ) {
    throw new BadRequestError(`team: no team ${request.team} for this client`, { field: 'team' });
  }
  const assigned =
    request.assignedTo == null
      ? null
      : agentOfClient(state, participant.clientId, request.assignedTo.id, 'assignedTo.id');
  const lastAssigned =
    request.lastAssignedAgent == null
      ? undefined
      : agentOfClient(state, participant.clientId, request.lastAssignedAgent.id, 'lastAssignedAgent.id');
  if (wasClosed && !willBeClosed) assertReopenable(state, participant);

  // rule 1: non-null strings and objects merge, null/omitted are preserved
  for (const field of MERGED_FIELDS) {
    const value = request[field];
    if (typeof value === 'string' || typeof value === 'boolean') {
      // '' is how such a field renders when unset: sent back (rule 4) it stays unset
      (participant as Record<string, unknown>)[field] =
        value === '' && UNSET_AS_EMPTY.has(field) ? null : value;
    }
  }
  if (lastAssigned !== undefined) participant.lastAssignedAgent = lastAssigned.id;
  // rule 2: assignedTo omitted or null clears the assignment (no move to lastAssignedAgent)
  state.setAssignedTo(participant, assigned === null ? null : assigned.id);
  // rule 3: the five booleans are always copied; omitted or null is false
  for (const flag of ALWAYS_COPIED_PARTICIPANT_FLAGS) {
    if (flag !== 'conversationClosed') participant[flag] = request[flag] ?? false;
  }
  state.setConversationClosed(participant, willBeClosed);

  if (!wasClosed && willBeClosed)
    onTerminated(state, participant, actor, 'terminateChatParticipantChat', now);
  if (wasClosed && !willBeClosed) participant.openedBy = actor.email;
}

/**
 * Live chat:
 * - getChatParticipant: one participant (400 without id, 404 unknown).
 * - terminateChatParticipantChat (deprecated): merge rules 1–5; answers with the updated
 *   ChatParticipant (the documented response body is not shown).
 * - terminateChatParticipant and reopenChatParticipant (v2, paths not shown): only the id; the
 *   actor (terminatedBy/openedBy) comes from the API key; 409 ILLEGAL_TRANSITION when the chat
 *   is already closed/open. v2 terminate triggers the rating widget when the stored
 *   sendRatingWidget is true.
 */
export const liveChatHandlers = (context: EmulatorContext) => {
  const { state } = context;
  return {
    getChatParticipant: ({ auth, query }) =>
      renderParticipant(state, participantOfClient(state, auth.client.id, query.id, 'id'), toUserResponse),
    terminateChatParticipantChat({ auth, body: request }) {
      const participant = participantOfClient(state, auth.client.id, request.id, 'id');
      applyTerminateRequest(state, participant, request, auth.user, context.now());
      return renderParticipant(state, participant, toSystemUser);
    },
    terminateChatParticipant({ auth, params }) {
      const participant = participantOfClient(state, auth.client.id, params.id, 'id');
      if (participant.conversationClosed) {
        throw new IllegalTransitionError(`Chat ${participant.id} is already closed`);
      }
      state.setConversationClosed(participant, true);
      onTerminated(state, participant, auth.user, 'terminateV2', context.now());
      return renderParticipant(state, participant, toUserResponse);
    },
    reopenChatParticipant({ auth, params }) {
      const participant = participantOfClient(state, auth.client.id, params.id, 'id');
      if (!participant.conversationClosed) {
        throw new IllegalTransitionError(`Chat ${participant.id} is not closed`);
      }
      assertReopenable(state, participant);
      state.setConversationClosed(participant, false);
      participant.openedBy = auth.user.email;
      return renderParticipant(state, participant, toUserResponse);
    },
  } satisfies Partial<PlatformHandlers>;
};
