/**
 * Compile-time tests of the reply operations: the typed client's `agentMessages` is what the
 * bot's `createBot({ agentMessages })` takes, its methods take the documented fields and resolve
 * with the schemas' types. Checked by `npm run typecheck`.
 */
import { expectTypeOf } from 'expect-type';
import {
  createPlatformClient,
  type OperationInput,
  type PlatformAgentMessagesApi,
  type PlatformClient,
} from '../../src/client/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { createBot, type AgentMessagesApi } from '../../src/index.js';
import type { AgentMessage, UploadMediaResponse } from '../../src/schemas/index.js';

// the client's group is the bot's structural type, exactly as users pass it
expectTypeOf<PlatformClient['agentMessages']>().toExtend<AgentMessagesApi>();
expectTypeOf<PlatformAgentMessagesApi>().toExtend<AgentMessagesApi>();
const platform = createPlatformClient({ baseUrl: 'http://127.0.0.1:4010', apiKey: 'key' });
createBot({ agentMessages: platform.agentMessages });
createBot({ agentMessages: createEmulator().client('emu-supervisor-key').agentMessages });

// send: chatParticipantId, channel and text or mediaUrl; resolves with the recorded message
expectTypeOf(platform.agentMessages.send).returns.resolves.toEqualTypeOf<AgentMessage>();
void platform.agentMessages.send({ chatParticipantId: 'c', channel: 'MESSAGING', text: 'Hi' });
void platform.agentMessages.send({ chatParticipantId: 'c', channel: 'WEB', mediaUrl: 'u', caption: 'c' });
// @ts-expect-error channel is one of MESSAGING, WEB, SOCIAL
void platform.agentMessages.send({ chatParticipantId: 'c', channel: 'SMS', text: 'Hi' });
// @ts-expect-error chatParticipantId is required
void platform.agentMessages.send({ channel: 'MESSAGING', text: 'Hi' });

// uploadMedia: bytes and a file name; resolves with { mediaUrl }
expectTypeOf(platform.agentMessages.uploadMedia).returns.resolves.toEqualTypeOf<UploadMediaResponse>();
void platform.agentMessages.uploadMedia({ data: new Uint8Array(1), fileName: 'a.png' });
// a Buffer (Uint8Array<ArrayBufferLike>) too: the bytes a file read gives
void platform.agentMessages.uploadMedia({ data: Buffer.from('x'), fileName: 'a.txt' });
void platform.agentMessages.uploadMedia({
  data: new Blob(['x']),
  fileName: 'a.txt',
  contentType: 'text/plain',
});
// @ts-expect-error fileName is required
void platform.agentMessages.uploadMedia({ data: new Uint8Array(1) });

// call(): the rows by operation id, typed by the table
expectTypeOf<OperationInput<'uploadAgentMessageMedia'>>().toHaveProperty('contentType');
void platform.call('sendAgentMessage', { body: { chatParticipantId: 'c', channel: 'MESSAGING', text: 'x' } });

// pathOverrides: only the operations whose path the documentation does not show
createPlatformClient({
  baseUrl: 'http://x',
  apiKey: 'k',
  pathOverrides: { sendAgentMessage: '/v2/messages' },
});
// @ts-expect-error a documented path cannot be moved
createPlatformClient({ baseUrl: 'http://x', apiKey: 'k', pathOverrides: { getMyProfile: '/me' } });
