import { z } from 'zod';
import { assignAgent, unassignAgent, type AssignmentOutcome } from '../agents.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import { parseBody } from '../http/validate.js';
import { userDisplayName } from '../state/index.js';
import { faults, ref, type TriggerContext } from './common.js';
import { numberOfParticipant, participantOf } from './lookups.js';

/** Input of {@link Triggers.assignAgent}. */
export const assignAgentInputSchema = z.object({
  chatParticipantId: ref,
  /** The agent; omitted: the available agent with the fewest open chats. */
  userId: ref.optional(),
  /** Route the chat to this team first. */
  teamId: ref.optional(),
  /**
   * Emit a chatbot assignment event (OUTGOING, messageType USER_ACTION, messageText the
   * assignment message; v2 adds routedToAnotherTeam), subject to the flags. @default false
   */
  notify: z.boolean().default(false),
  faults,
});
export type AssignAgentInput = z.input<typeof assignAgentInputSchema>;

/** Input of {@link Triggers.unassignAgent}. */
export const unassignAgentInputSchema = z.object({ chatParticipantId: ref });
export type UnassignAgentInput = z.input<typeof unassignAgentInputSchema>;

/** Result of {@link Triggers.assignAgent}: the outcome and the assignment event's delivery, if any. */
export interface AssignAgentResult extends AssignmentOutcome {
  readonly deliveries: readonly DeliveryLogEntry[];
}

/** The assignment triggers: an agent takes a chat, or the chat goes back to the queue. */
export function assignmentTriggers({ state, events }: TriggerContext) {
  const { emitChatbot } = events;
  return {
    assignAgent(raw: unknown): AssignAgentResult {
      const input = parseBody(assignAgentInputSchema, raw);
      const participant = participantOf(state, input.chatParticipantId);
      const outcome = assignAgent(state, participant, { userId: input.userId, teamId: input.teamId });
      const deliveries: DeliveryLogEntry[] = [];
      const agent = outcome.agentId === null ? undefined : state.users.get(outcome.agentId);
      if (input.notify && agent !== undefined) {
        const number = numberOfParticipant(state, participant);
        const chatbot = emitChatbot(number, participant, input, {
          direction: 'OUTGOING',
          messageType: 'USER_ACTION',
          messageText: agent.assignmentMessage ?? `Assigned to ${userDisplayName(agent)}`,
          routedToAnotherTeam: outcome.routedToAnotherTeam,
        });
        if (chatbot.delivery !== undefined) deliveries.push(chatbot.delivery);
      }
      return { ...outcome, deliveries };
    },

    unassignAgent(raw: unknown): { readonly chatParticipantId: string } {
      const input = parseBody(unassignAgentInputSchema, raw);
      const participant = participantOf(state, input.chatParticipantId);
      unassignAgent(state, participant);
      return { chatParticipantId: participant.id };
    },
  };
}
