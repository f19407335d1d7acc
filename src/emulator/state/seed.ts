import { MAX_SNAPSHOT_DEPTH, nestedTooDeep } from './nesting.js';
import { newId } from '../ids.js';
import { SEED_LITE_NUMBER } from './seed-numbers.js';
import {
  emulatorSeedSchema,
  type EmulatorClient,
  type EmulatorNumber,
  type EmulatorSeed,
  type EmulatorTeam,
  type EmulatorUser,
} from './records.js';
import { newChatParticipant, StateConflictError, type EmulatorState } from './store.js';

/** The default seed's fixed API keys, so docs and tests can use them without reading state. */
export const DEFAULT_API_KEYS = {
  supervisor: 'emu-supervisor-key',
  agent: 'emu-agent-key',
  otherClient: 'emu-other-client-key',
} as const;

const fixedId = (n: number): string => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;

/**
 * The zero-config seed: client `demo` with a supervisor, two agents and a team, a Lite and a
 * Cloud number, and client `other` with one user and one number (for scope rule 6). Ids are
 * fixed so documentation examples work as written.
 */
export function createDefaultSeed(): EmulatorSeed {
  return {
    clients: [
      { id: fixedId(1), clientRef: 'demo' },
      { id: fixedId(2), clientRef: 'other' },
    ],
    teams: [
      { id: fixedId(11), clientRef: 'demo', name: 'Sales' },
      { id: fixedId(12), clientRef: 'demo', name: 'Support' },
    ],
    users: [
      {
        id: fixedId(21),
        clientRef: 'demo',
        email: 'supervisor@demo.test',
        firstName: 'Sam',
        lastName: 'Supervisor',
        liveChatRole: 'SUPERVISOR',
        apiKey: DEFAULT_API_KEYS.supervisor,
        teamIds: [fixedId(11), fixedId(12)],
      },
      {
        id: fixedId(22),
        clientRef: 'demo',
        email: 'agent@demo.test',
        firstName: 'Ada',
        lastName: 'Agent',
        liveChatRole: 'AGENT',
        apiKey: DEFAULT_API_KEYS.agent,
        agentChatLimit: 2,
        teamIds: [fixedId(11)],
      },
      {
        id: fixedId(23),
        clientRef: 'demo',
        email: 'bob@demo.test',
        firstName: 'Bob',
        lastName: 'Agent',
        liveChatRole: 'AGENT',
        apiKey: 'emu-agent2-key',
        agentChatLimit: 1,
        teamIds: [fixedId(12)],
      },
      {
        id: fixedId(24),
        clientRef: 'other',
        email: 'admin@other.test',
        firstName: 'Olga',
        lastName: 'Other',
        liveChatRole: 'SUPERVISOR',
        apiKey: DEFAULT_API_KEYS.otherClient,
      },
    ],
    numbers: [
      {
        id: fixedId(31),
        messagingNumberId: fixedId(41),
        clientRef: 'demo',
        msisdn: SEED_LITE_NUMBER,
        kind: 'lite',
      },
      {
        id: fixedId(32),
        messagingNumberId: fixedId(42),
        clientRef: 'demo',
        msisdn: '+27820000002',
        kind: 'cloud',
      },
      {
        id: fixedId(33),
        messagingNumberId: fixedId(43),
        clientRef: 'other',
        msisdn: '+27830000001',
        kind: 'cloud',
      },
    ],
  };
}

/** Thrown when a seed does not validate or refers to something it does not define. */
export class SeedError extends TypeError {
  override readonly name = 'SeedError';
}

/**
 * Loads a seed into `state` (added to what is there). Throws {@link SeedError} naming the field
 * when the seed is malformed, refers to an unknown clientRef, team or number, or repeats what
 * must be unique (an id, an API key, a live user's e-mail, a customer's open chat on a number).
 */
export function applySeed(state: EmulatorState, seed: EmulatorSeed, now: Date): void {
  // what a seed stores must fit a snapshot: see MAX_SNAPSHOT_DEPTH
  const deep = nestedTooDeep(seed, MAX_SNAPSHOT_DEPTH);
  if (deep !== undefined) {
    throw new SeedError(
      `Invalid emulator seed at ${deep.split('.').slice(0, 8).join('.')}: nested deeper than ${MAX_SNAPSHOT_DEPTH} levels`,
    );
  }
  const parsed = emulatorSeedSchema.safeParse(seed);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SeedError(`Invalid emulator seed at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
  }
  const data = parsed.data;
  const clientIdOfRef = (clientRef: string): string => {
    const client = state.clientByRef(clientRef);
    if (client === undefined) throw new SeedError(`Invalid emulator seed: unknown clientRef ${clientRef}`);
    return client.id;
  };
  try {
    for (const client of data.clients) {
      const record: EmulatorClient = { ...client, id: client.id ?? newId() };
      state.addClient(record);
    }
    for (const team of data.teams) {
      const clientId = clientIdOfRef(team.clientRef);
      const record: EmulatorTeam = { ...team, id: team.id ?? newId(), clientId };
      state.addTeam(record);
    }
    for (const user of data.users) {
      const clientId = clientIdOfRef(user.clientRef);
      for (const teamId of user.teamIds) {
        if (!state.teams.has(teamId)) throw new SeedError(`Invalid emulator seed: unknown team ${teamId}`);
      }
      const record: EmulatorUser = { ...user, id: user.id ?? newId(), clientId };
      state.addUser(record);
    }
    for (const number of data.numbers) {
      const record: EmulatorNumber = {
        id: number.id ?? newId(),
        clientId: clientIdOfRef(number.clientRef),
        messagingNumber: {
          id: number.messagingNumberId ?? newId(),
          number: number.msisdn,
          messagingProvider: number.provider,
        },
        kind: number.kind,
      };
      state.addNumber(record);
    }
    for (const participant of data.chatParticipants) {
      const clientId = clientIdOfRef(participant.clientRef);
      const number = state.numberByMsisdn(participant.messagingClientNumber);
      if (number === undefined || number.clientId !== clientId) {
        throw new SeedError(
          `Invalid emulator seed: ${participant.messagingClientNumber} is not a number of ${participant.clientRef}`,
        );
      }
      state.addChatParticipant(newChatParticipant(state, number, participant.sender, now, participant));
    }
  } catch (error) {
    if (error instanceof StateConflictError) {
      throw new SeedError(`Invalid emulator seed: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
