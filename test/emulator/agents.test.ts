import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { SEED, T0 } from './harness.js';

/*
 * Agent assignment (control surface): availabilityStatus and agentChatLimit are respected, the
 * assignment drives assignedAgentId/lastAssignedAgentId, and an unassignable chat is missed.
 */

let emulator: Emulator;
beforeEach(() => {
  emulator = createEmulator({ retry: { attempts: 1 }, clock: T0 });
});

let customer = 0;
const openChat = (): string =>
  emulator.customerMessage({
    number: SEED.cloud.msisdn,
    from: `+2783100${String(customer++).padStart(4, '0')}`,
    text: 'hi',
  }).chatParticipantId;

const user = (id: string) => {
  const found = emulator.state.users.get(id);
  if (found === undefined) throw new Error(`no user ${id}`);
  return found;
};

describe('agent assignment', () => {
  it('refuses an offline agent (availabilityStatus false)', () => {
    user(SEED.users.ada).availabilityStatus = false;
    expect(() => emulator.assignAgent({ chatParticipantId: openChat(), userId: SEED.users.ada })).toThrow(
      expect.objectContaining({
        code: 'AGENT_UNAVAILABLE',
        status: 409,
        message: expect.stringMatching(/offline/),
      }),
    );
  });

  it('refuses an agent at agentChatLimit, and accepts again when a chat is released', () => {
    // Bob's limit is 1
    const first = openChat();
    emulator.assignAgent({ chatParticipantId: first, userId: SEED.users.bob });
    const second = openChat();
    expect(() => emulator.assignAgent({ chatParticipantId: second, userId: SEED.users.bob })).toThrow(
      expect.objectContaining({
        code: 'AGENT_UNAVAILABLE',
        message: expect.stringMatching(/agentChatLimit/),
      }),
    );
    // re-assigning the same chat to the same agent is not a second chat
    expect(emulator.assignAgent({ chatParticipantId: first, userId: SEED.users.bob }).assigned).toBe(true);
    emulator.unassignAgent({ chatParticipantId: first });
    expect(emulator.assignAgent({ chatParticipantId: second, userId: SEED.users.bob }).assigned).toBe(true);
  });

  it('automatic assignment picks the available AGENT with the fewest open chats', () => {
    const picks = [openChat(), openChat(), openChat()].map(
      (id) => emulator.assignAgent({ chatParticipantId: id }).agentId,
    );
    // Ada (limit 2) and Bob (limit 1) share the load; the supervisor is never auto-picked
    expect(picks).toEqual([SEED.users.ada, SEED.users.bob, SEED.users.ada]);
  });

  it('when no agent can take the chat it stays with the bot and is marked missed', () => {
    user(SEED.users.ada).availabilityStatus = false;
    user(SEED.users.bob).availabilityStatus = false;
    const chat = openChat();
    expect(emulator.assignAgent({ chatParticipantId: chat })).toMatchObject({
      assigned: false,
      agentId: null,
    });
    expect(emulator.chatParticipant(chat)).toMatchObject({
      missedConversation: true,
      chatBotConversation: true,
      assignedTo: null,
    });
  });

  it('reassignment moves the previous agent to lastAssignedAgent; a team restricts automatic assignment', () => {
    const chat = openChat();
    emulator.assignAgent({ chatParticipantId: chat, userId: SEED.users.ada });
    const moved = emulator.assignAgent({ chatParticipantId: chat, teamId: SEED.teams.support });
    expect(moved).toMatchObject({ assigned: true, agentId: SEED.users.bob, routedToAnotherTeam: true });
    expect(emulator.chatParticipant(chat)).toMatchObject({
      assignedTo: SEED.users.bob,
      lastAssignedAgent: SEED.users.ada,
      team: SEED.teams.support,
      chatBotConversation: false,
    });
  });

  it('refuses users of another client, unknown users and unknown teams', () => {
    const chat = openChat();
    expect(() => emulator.assignAgent({ chatParticipantId: chat, userId: SEED.users.olga })).toThrow(
      expect.objectContaining({ code: 'AGENT_UNAVAILABLE' }),
    );
    expect(() => emulator.assignAgent({ chatParticipantId: chat, userId: 'nobody' })).toThrow(
      expect.objectContaining({ status: 404, field: 'userId' }),
    );
    expect(() => emulator.assignAgent({ chatParticipantId: chat, teamId: 'nope' })).toThrow(
      expect.objectContaining({ status: 404, field: 'teamId' }),
    );
    expect(() => emulator.assignAgent({ chatParticipantId: 'nope' })).toThrow(
      expect.objectContaining({ status: 404, field: 'chatParticipantId' }),
    );
  });
});
