import { ConflictError, InternalError, NotFoundError } from '../errors.js';
import {
  findNumber,
  newChatParticipant,
  type EmulatorChatParticipant,
  type EmulatorNumber,
  type EmulatorState,
} from '../state/index.js';

/*
 * The lookups the triggers share: a trigger names a number or a chat, and a missing one is a 404
 * naming the field.
 */

export function numberOf(state: EmulatorState, refValue: string, field: string): EmulatorNumber {
  const number = findNumber(state, refValue);
  if (number === undefined) throw new NotFoundError(`No number ${refValue} in the emulator`, { field });
  return number;
}

export function participantOf(state: EmulatorState, id: string): EmulatorChatParticipant {
  const participant = state.chatParticipants.get(id);
  if (participant === undefined) {
    throw new NotFoundError(`No chat participant ${id}`, { field: 'chatParticipantId' });
  }
  return participant;
}

/** A chat participant of the caller's client by id; anything else is 404 naming `field` (ids do not leak). */
export function participantOfClient(
  state: EmulatorState,
  clientId: string,
  id: string,
  field: string,
): EmulatorChatParticipant {
  const participant = state.chatParticipants.get(id);
  if (participant?.clientId !== clientId) throw new NotFoundError(`No chat participant ${id}`, { field });
  return participant;
}

export function numberOfParticipant(
  state: EmulatorState,
  participant: EmulatorChatParticipant,
): EmulatorNumber {
  const number = state.numbers.get(participant.numberId);
  if (number === undefined) throw new InternalError('Chat participant without a number');
  return number;
}

/** A disconnected Lite session stops all incoming and outgoing messaging. */
export function assertMessagingPossible(state: EmulatorState, number: EmulatorNumber): void {
  if (state.sessions.get(number.id)?.statusType === 'disconnected') {
    throw new ConflictError(
      `Number ${number.messagingNumber.number} is disconnected: all messaging has stopped until it reconnects`,
    );
  }
}

/** The customer's open chat on the number, or a new one opened at `now` (ISO 8601). */
export function participantFor(
  state: EmulatorState,
  number: EmulatorNumber,
  sender: string,
  now: string,
  userId?: string,
): EmulatorChatParticipant {
  const open = state.openChat(number.id, sender);
  if (open !== undefined) return open;
  const seed = userId === undefined ? {} : { userId };
  const created = newChatParticipant(state, number, sender, now, seed);
  state.addChatParticipant(created);
  return created;
}
