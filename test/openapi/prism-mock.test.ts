import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPlatformClient, type PlatformClient } from '../../src/client/index.js';
import { createOpenApiDocument } from '../../src/openapi/index.js';

/**
 * The document as a mock server reads it: Prism (`prism mock`, from npm) serves the shipped
 * document on 127.0.0.1, and the real typed client calls every one of its methods against it.
 * Prism runs with `--errors`, so a request the document refuses, or an answer Prism generated
 * that breaks the document, is an error answer; the client checks every answer with its zod
 * schemas. Every call must succeed: the paths (the chat prefix folded in), the request bodies,
 * the generated answers and the client's checks all agree.
 */
const PRISM = fileURLToPath(
  new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url),
);
const ID = '00000000-0000-4000-8000-000000000001';

let dir: string;
let prism: ChildProcessWithoutNullStreams | undefined;
let client: PlatformClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mw-openapi-prism-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(createOpenApiDocument()));
  const child = spawn(
    process.execPath,
    [PRISM, 'mock', file, '--host', '127.0.0.1', '--port', '0', '--errors'],
    {
      env: { ...process.env, NODE_OPTIONS: '', FORCE_COLOR: '0' },
    },
  );
  prism = child;
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const listening = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (listening !== null) {
        clearTimeout(timer);
        resolve(listening[1] as string);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited (${String(code)}):\n${output}`));
    });
  });
  client = createPlatformClient({ baseUrl, apiKey: 'any-key' });
}, 90_000);

afterAll(() => {
  prism?.removeAllListeners('exit');
  prism?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** One call per method of the typed client, with a request the documentation allows. */
const CALLS: Readonly<Record<string, (c: PlatformClient) => Promise<unknown>>> = {
  'webhooks.create': (c) => c.webhooks.create({ incomingMessageURL: 'https://example.test/in' }),
  'webhooks.update': (c) => c.webhooks.update({ id: ID, statusUpdateURL: '' }),
  'webhooks.getDefault': (c) => c.webhooks.getDefault(),
  'webhooks.list': (c) => c.webhooks.list({ page: 0, size: 5 }),
  'webhooks.delete': (c) => c.webhooks.delete(ID),
  'numbers.lookup': (c) => c.numbers.lookup('0001'),
  'users.me': (c) => c.users.me(),
  'users.list': (c) => c.users.list(),
  'users.create': (c) => c.users.create({ email: 'new@example.test' }),
  'users.update': (c) => c.users.update({ id: ID, firstName: 'Ada' }),
  'users.delete': (c) => c.users.delete(ID),
  'users.page': (c) => c.users.page({ page: 0, size: 5 }),
  'users.changeAvailability': (c) => c.users.changeAvailability({ availabilityStatus: true }),
  'users.setAgentChatLimit': (c) => c.users.setAgentChatLimit({ userId: ID, agentChatLimit: 2 }),
  'users.changePassword': (c) =>
    c.users.changePassword({ oldPassword: 'a', newPassword: 'b', confirmNewPassword: 'b' }),
  'users.credits': (c) => c.users.credits(),
  'systemUsers.create': (c) => c.systemUsers.create({ email: 'old@example.test', password: 'pw' }),
  'systemUsers.update': (c) => c.systemUsers.update({ id: ID, firstName: 'Lee' }),
  'systemUsers.getCurrentLoginSystemUser': (c) => c.systemUsers.getCurrentLoginSystemUser(),
  'systemUsers.getCurrentClientUsers': (c) => c.systemUsers.getCurrentClientUsers(),
  'systemUsers.getUsersForClient': (c) => c.systemUsers.getUsersForClient({ clientRef: 'demo' }),
  'systemUsers.changeAvailableStatus': (c) => c.systemUsers.changeAvailableStatus(),
  'systemUsers.updateAgentChatLimit': (c) =>
    c.systemUsers.updateAgentChatLimit({ userId: ID, agentChatLimit: 2 }),
  'systemUsers.changePassword': (c) =>
    c.systemUsers.changePassword({ oldPassword: 'a', newPassword: 'b', confirmNewPassword: 'b' }),
  'systemUsers.getMessagingCreditsForCurrentLoginUser': (c) =>
    c.systemUsers.getMessagingCreditsForCurrentLoginUser(),
  'chatParticipants.get': (c) => c.chatParticipants.get(ID),
  'chatParticipants.terminateChatParticipantChat': (c) =>
    c.chatParticipants.terminateChatParticipantChat({ id: ID, conversationClosed: true }),
  'chatParticipants.setConversationClosed': (c) => c.chatParticipants.setConversationClosed(ID, true),
  'chatParticipants.terminate': (c) => c.chatParticipants.terminate(ID),
  'chatParticipants.reopen': (c) => c.chatParticipants.reopen(ID),
  'agentMessages.send': (c) =>
    c.agentMessages.send({ chatParticipantId: ID, channel: 'MESSAGING', text: 'Hello' }),
  'agentMessages.uploadMedia': (c) =>
    c.agentMessages.uploadMedia({ data: new Uint8Array([1, 2, 3]), fileName: 'a.png' }),
};

it('covers every method of the typed client', () => {
  const methods = Object.entries(createPlatformClient({ baseUrl: 'http://x.test', apiKey: 'k' })).flatMap(
    ([group, api]) =>
      typeof api === 'function' ? [] : Object.keys(api as object).map((m) => `${group}.${m}`),
  );
  expect(Object.keys(CALLS).sort()).toEqual(methods.sort());
});

it("Prism's mock of the document answers every typed-client call", async () => {
  const failures: string[] = [];
  for (const [name, call] of Object.entries(CALLS)) {
    await call(client).catch((error: unknown) => {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  const total = Object.keys(CALLS).length;
  process.stdout.write(`Prism's mock answered ${total - failures.length} of ${total} typed-client calls\n`);
  expect(failures).toEqual([]);
}, 60_000);
