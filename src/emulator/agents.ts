import { AgentUnavailableError, ConflictError, NotFoundError } from './errors.js';
import type { EmulatorChatParticipant, EmulatorState, EmulatorUser } from './state/index.js';

/** Why a user cannot take a chat now, or undefined when they can. */
function agentUnavailableReason(
  state: EmulatorState,
  user: EmulatorUser,
  participant: EmulatorChatParticipant,
): string | undefined {
  if (user.clientId !== participant.clientId) return 'belongs to another client';
  if (user.disabled || user.deleted) return 'is disabled';
  if (user.liveChatRole === null) return 'has no live-chat role';
  if (!user.availabilityStatus) return 'is offline (availabilityStatus false)';
  const already = participant.assignedTo === user.id ? 1 : 0;
  if (state.openChatCount(user.id) - already >= user.agentChatLimit) {
    return `is at its agentChatLimit (${user.agentChatLimit})`;
  }
  return undefined;
}

/** The outcome of an assignment. */
export interface AssignmentOutcome {
  readonly assigned: boolean;
  /** The agent now assigned, or null when none could be. */
  readonly agentId: string | null;
  /** True when the assignment moved the chat to a different team (v2 routedToAnotherTeam). */
  readonly routedToAnotherTeam: boolean;
}

/**
 * Assigns a chat to an agent. With `userId`, that agent, or an {@link AgentUnavailableError}
 * when they are offline, disabled or at agentChatLimit. Without, the available AGENT (not
 * SUPERVISOR) of the chat's team (any team when the chat has none) with the fewest open chats; when nobody is
 * available the chat stays with the bot and is marked missed (conversationMissed: "could not be
 * assigned because agents were offline"). Assigning takes the chat from the bot
 * (chatBotConversation false); a previous agent becomes lastAssignedAgent.
 */
export function assignAgent(
  state: EmulatorState,
  participant: EmulatorChatParticipant,
  request: { readonly userId?: string | undefined; readonly teamId?: string | undefined },
): AssignmentOutcome {
  if (participant.conversationClosed) {
    throw new ConflictError(`Chat ${participant.id} is closed; reopen it before assigning`);
  }
  let routedToAnotherTeam = false;
  if (request.teamId !== undefined) {
    const team = state.teams.get(request.teamId);
    if (team?.clientId !== participant.clientId) {
      throw new NotFoundError(`No team ${request.teamId} for this client`, { field: 'teamId' });
    }
    routedToAnotherTeam = participant.team !== team.id;
    participant.team = team.id;
  }
  let agent: EmulatorUser | undefined;
  if (request.userId !== undefined) {
    agent = state.users.get(request.userId);
    if (agent === undefined) throw new NotFoundError(`No user ${request.userId}`, { field: 'userId' });
    const reason = agentUnavailableReason(state, agent, participant);
    if (reason !== undefined) throw new AgentUnavailableError(`Agent ${agent.email} ${reason}`);
  } else {
    // automatic routing goes to the client's agents; supervisors take chats only when named
    for (const user of state.usersOfClient(participant.clientId)) {
      if (user.liveChatRole !== 'AGENT') continue;
      if (participant.team !== null && !user.teamIds.includes(participant.team)) continue;
      if (agentUnavailableReason(state, user, participant) !== undefined) continue;
      // the fewest open chats; ties to the lowest id
      const load = state.openChatCount(user.id);
      const best = agent === undefined ? undefined : state.openChatCount(agent.id);
      if (
        best === undefined ||
        load < best ||
        (load === best && user.id.localeCompare(agent?.id ?? '') < 0)
      ) {
        agent = user;
      }
    }
  }
  if (agent === undefined) {
    participant.missedConversation = true;
    return { assigned: false, agentId: null, routedToAnotherTeam };
  }
  if (participant.assignedTo !== null && participant.assignedTo !== agent.id) {
    participant.lastAssignedAgent = participant.assignedTo;
  }
  state.setAssignedTo(participant, agent.id);
  participant.chatBotConversation = false;
  participant.missedConversation = false;
  participant.conversationStatus = 'ACTIVE';
  return { assigned: true, agentId: agent.id, routedToAnotherTeam };
}

/**
 * Hands a chat back to the bot: the agent becomes lastAssignedAgent, assignedTo is cleared and
 * chatBotConversation is true again.
 */
export function unassignAgent(state: EmulatorState, participant: EmulatorChatParticipant): void {
  if (participant.assignedTo !== null) participant.lastAssignedAgent = participant.assignedTo;
  state.setAssignedTo(participant, null);
  participant.chatBotConversation = true;
}
