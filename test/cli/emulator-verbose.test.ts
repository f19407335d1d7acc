import request from 'supertest';
import { startEmulatorCommand } from '../../src/cli/emulator.js';
import { printableIo } from '../../src/cli/output.js';
import type { Emulator } from '../../src/emulator/index.js';
import { SEED } from '../emulator/harness.js';

// eslint-disable-next-line no-control-regex -- what must not reach the terminal
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('emulator --verbose', () => {
  it('prints a delivery whose URL carries escape sequences with them escaped', async () => {
    const err: string[] = [];
    const io = {
      out: () => undefined,
      err: (line: string) => err.push(line),
      isTty: false,
      status: () => undefined,
    };
    // the writer main() hands every command
    emulator = await startEmulatorCommand({ port: '0', verbose: true, retryAttempts: '1' }, printableIo(io));
    // The configuration API refuses a URL with control characters (400); a state built in-process
    // can still hold one, and the terminal must not receive it raw either way.
    const url = 'http://127.0.0.1:1/in?x=\u001b]0;owned\u0007\u001b[2J\u009b31m';
    const refused = await request(emulator.listener)
      .post('/Messaging/MessagingClientWebHook')
      .set('authorization', SEED.supervisorKey)
      .send({ incomingMessageURL: url });
    expect(refused.status).toBe(400);
    const clientId = [...emulator.state.clients.values()][0]!.id;
    emulator.state.putWebhookConfig({
      id: 'cfg-escapes',
      clientId,
      messagingNumberId: null,
      messagingNumberMsisdn: null,
      incomingMessageURL: url,
      chatbotIncludeOutgoing: false,
      chatbotStopOnAgentAssignment: false,
      chatbotPayloadVersion: null,
    });
    emulator.customerMessage({ number: SEED.cloud.msisdn, from: '+27831110001', text: 'x' });
    await emulator.idle();
    expect(err).toHaveLength(1);
    expect(err[0]).not.toMatch(CONTROL);
    expect(err[0]).toContain('\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m');
  });
});
