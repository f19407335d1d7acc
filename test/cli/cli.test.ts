import express from 'express';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookRouter, type WebhookRouter } from '../../src/receiver/index.js';
import type { WebhookType } from '../../src/schemas/index.js';
import { allFixtures, serialiseRecord, type CaptureRecord } from '../../src/testing/index.js';
import {
  assertBuilt,
  runCli,
  spawnCli,
  STACK_LINE,
  unusedPort,
  waitForExit,
  waitForOutput,
} from './run-cli.js';

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'mw-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATHS: Record<WebhookType, string> = {
  incoming: '/incoming',
  status: '/status',
  session: '/session',
  event: '/events',
  chatbot: '/chatbot',
};

/** A capture record for a payload, as the receiver's capture option writes it. */
function recordOf(
  type: WebhookType | undefined,
  body: string,
  receivedAt = '2026-01-01T12:00:00.000Z',
): CaptureRecord {
  return {
    receivedAt,
    type,
    path: type === undefined ? '/' : PATHS[type],
    headers: { 'content-type': 'application/json' },
    body,
  };
}

function writeLines(name: string, lines: readonly string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Every fixture as a capture file: all of them pass the schemas. */
function goodFile(name = 'good.jsonl'): { file: string; count: number } {
  const fixtures = allFixtures();
  const lines = fixtures.map(({ type, payload }) => serialiseRecord(recordOf(type, JSON.stringify(payload))));
  return { file: writeLines(name, lines), count: lines.length };
}

interface Receiver {
  readonly url: string;
  readonly router: WebhookRouter;
  readonly received: { type: WebhookType; payload: unknown }[];
  close(): Promise<void>;
}

async function startReceiver(token?: string): Promise<Receiver> {
  const received: { type: WebhookType; payload: unknown }[] = [];
  const record =
    (type: WebhookType) =>
    (payload: unknown): void => {
      received.push({ type, payload });
    };
  const router = createWebhookRouter({
    ...(token === undefined ? {} : { token }),
    dedupe: false,
    onIncoming: record('incoming'),
    onStatus: record('status'),
    onSession: record('session'),
    onEvent: record('event'),
    onChatbot: record('chatbot'),
  });
  const app = express();
  app.use('/webhooks', router);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    router,
    received,
    async close() {
      await router.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

describe('messaging-webhooks --help', () => {
  it.each(['emulator', 'replay', 'validate', 'demo'])(
    'prints the usage of %s and exits 0',
    async (command) => {
      const run = await runCli([command, '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: messaging-webhooks ${command}`);
    },
  );

  it('lists every command in the top-level help', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['emulator', 'replay', 'validate', 'demo']) expect(run.stdout).toContain(command);
  });

  it('exits non-zero on an unknown command, without a stack trace', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('unknown command');
    expect(run.stderr).not.toMatch(STACK_LINE);
  });
});

describe('messaging-webhooks emulator', () => {
  it('prints its URL and API key, serves the API, and stops on SIGTERM', async () => {
    const child = spawnCli(['emulator', '--port', '0']);
    const exited = waitForExit(child);
    try {
      const [, url] = await waitForOutput(child, /Emulator listening on (http:\/\/\S+)/);
      const state = await fetch(`${url}/_emulator/state`);
      expect(state.status).toBe(200);
      const described = (await state.json()) as { users: { apiKey: string }[] };
      expect(described.users.map((user) => user.apiKey)).toContain('emu-supervisor-key');

      const created = await fetch(`${url}/Messaging/MessagingClientWebHook`, {
        method: 'POST',
        headers: { authorization: 'emu-supervisor-key', 'content-type': 'application/json' },
        body: JSON.stringify({ incomingMessageURL: 'http://127.0.0.1:9/webhooks/incoming' }),
      });
      expect(created.status).toBe(200);
      const unauthorised = await fetch(`${url}/Messaging/MessagingClientWebHook/list`);
      expect(unauthorised.status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    const run = await exited;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('API key: emu-supervisor-key');
    expect(run.stdout).toContain('Emulator stopped.');
  });

  it('stops quietly when its reader goes away (`| head`), instead of an EPIPE stack trace', async () => {
    const child = spawnCli(['emulator', '--port', '0']);
    const exited = waitForExit(child);
    const [, url] = await waitForOutput(child, /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/);
    // one round trip: the command has returned and its SIGTERM handler is installed
    expect((await fetch(`${url}/_emulator/state`)).status).toBe(200);
    child.stdout.destroy(); // the reader is gone: the next line written fails with EPIPE
    child.kill('SIGTERM'); // which writes "SIGTERM: stopping the emulator"
    const run = await exited;
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stderr).not.toContain('EPIPE');
    expect(run.code).toBe(0);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'writes its state to --save-state on %s, and starts from it with --state',
    async (signal) => {
      const file = join(dir, `state-${signal}.json`);
      const first = spawnCli(['emulator', '--port', '0', '--save-state', file]);
      const firstExit = waitForExit(first);
      let chatParticipantId: string | undefined;
      try {
        const [, url] = await waitForOutput(
          first,
          /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/,
        );
        const sent = await fetch(`${url}/_emulator/customer-message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ number: '+27820000001', from: '+27831234567', text: 'Hi' }),
        });
        chatParticipantId = ((await sent.json()) as { chatParticipantId: string }).chatParticipantId;
      } finally {
        first.kill(signal);
      }
      const stopped = await firstExit;
      expect(stopped.code).toBe(0);
      expect(stopped.stdout).toContain('Deliveries: up to 16 at once (one conversation in order)');
      expect(stopped.stdout).toContain(`State saved to ${file} (1 chats, 0 outbound messages)`);
      const saved = JSON.parse(readFileSync(file, 'utf8')) as {
        version: number;
        chatParticipants: { id: string }[];
      };
      expect(saved.version).toBe(1);
      expect(saved.chatParticipants.map((chat) => chat.id)).toEqual([chatParticipantId]);

      const second = spawnCli(['emulator', '--port', '0', '--state', file, '--delivery-concurrency', '1']);
      const secondExit = waitForExit(second);
      try {
        const [, url] = await waitForOutput(
          second,
          /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/,
        );
        const chats = (await (await fetch(`${url}/_emulator/chat-participants`)).json()) as {
          items: { id: string }[];
        };
        expect(chats.items.map((chat) => chat.id)).toEqual([chatParticipantId]);
      } finally {
        second.kill('SIGTERM');
      }
      const run = await secondExit;
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`State from ${file}: 1 chats, 0 outbound messages`);
      expect(run.stdout).toContain('Deliveries: up to 1 at once');
    },
  );

  it('refuses a --state that is missing, not JSON or not a snapshot, naming the problem', async () => {
    const missing = await runCli(['emulator', '--state', join(dir, 'no-state.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      `error: --state: cannot read ${join(dir, 'no-state.json')}: no such file`,
    );
    const notJson = writeLines('not-json.json', ['{"version":']);
    const garbled = await runCli(['emulator', '--state', notJson]);
    expect(garbled.code).toBe(1);
    expect(garbled.stderr).toContain(`error: --state: ${notJson} is not JSON`);
    const wrong = writeLines('wrong-version.json', ['{"version":2}']);
    const refused = await runCli(['emulator', '--state', wrong]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error: --state: ${wrong}: Invalid emulator state at version`);
    const nowhere = await runCli(['emulator', '--save-state', join(dir, 'no-such-dir', 'state.json')]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('error: --save-state: no directory');
    for (const run of [missing, garbled, refused, nowhere]) expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it('reports a port already in use with one clear line', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as AddressInfo).port;
      const run = await runCli(['emulator', '--port', String(port)]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `error: port ${port} on 127.0.0.1 is already in use (--port 0 picks a free one)`,
      );
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });

  it('refuses a bad port with one clear line', async () => {
    const run = await runCli(['emulator', '--port', 'seventy']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: --port: expected a port number');
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  // Number() reads '' as 0 (a random port), '0x50' as 80 and '1e3' as 1000: each used to start an emulator
  it.each(['', ' ', '0x50', '1e3'])(
    'refuses %j as a port rather than reading it as a number',
    async (port) => {
      const run = await runCli(['emulator', '--port', port]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('error: --port: expected a port number');
    },
  );
});

describe('messaging-webhooks validate', () => {
  it('passes a file of valid payloads and exits 0', async () => {
    const { file, count } = goodFile();
    const run = await runCli(['validate', file]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${count} lines: ${count} valid, 0 invalid, 0 unreadable`);
  });

  it('names each failing payload by line with its failing fields, reads on past a bad line, exits 1', async () => {
    const [first] = allFixtures();
    const file = writeLines('bad.jsonl', [
      serialiseRecord(recordOf(first!.type, JSON.stringify(first!.payload))),
      '{"receivedAt": "2026-01-01T12:00:00Z", "type": "status",',
      serialiseRecord(recordOf('status', JSON.stringify({ status: 'SENT' }))),
      serialiseRecord(recordOf(undefined, JSON.stringify({ hello: 'world' }))),
      serialiseRecord(recordOf('incoming', '{not json')),
      '',
      '{"some":"object"}',
    ]);
    const run = await runCli(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('line 2: invalid JSON');
    expect(run.stdout).toMatch(/line 3 \(status, \/status\)\n\s+gstId: /);
    expect(run.stdout).toContain('line 4 (unknown type, /)');
    expect(run.stdout).toContain('the webhook type could not be detected');
    expect(run.stdout).toMatch(/line 5 \(incoming, \/incoming\)\n\s+\(payload\): invalid JSON/);
    expect(run.stdout).toContain('line 7: not a capture record');
    expect(run.stdout).toContain('6 lines: 1 valid, 3 invalid, 2 unreadable');
    expect(run.stdout + run.stderr).not.toMatch(STACK_LINE);
  });

  it('reports a missing file in one line and exits 1', async () => {
    const run = await runCli(['validate', join(dir, 'nope.jsonl')]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `error: cannot read capture file ${join(dir, 'nope.jsonl')}: no such file`,
    );
  });
});

describe('messaging-webhooks replay', () => {
  it('sends every captured payload to the receiver in file order with --concurrency 1, and prints a summary', async () => {
    const receiver = await startReceiver('s3cret');
    try {
      const { file, count } = goodFile('replay.jsonl');
      const run = await runCli([
        'replay',
        file,
        '--to',
        receiver.url,
        '--token',
        's3cret',
        '--concurrency',
        '1',
      ]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`1/${count} line 1 `);
      expect(run.stdout).toContain(`Replayed ${count} of ${count} to ${receiver.url}: ${count} ok, 0 failed`);
      await receiver.router.idle();
      const expected = allFixtures().map(({ type, payload }) => ({ type, payload }));
      expect(receiver.received).toHaveLength(expected.length);
      expect(receiver.received.map((call) => call.type)).toEqual(expected.map((call) => call.type));
    } finally {
      await receiver.close();
    }
  });

  it('reports a bad JSON line by number, keeps going, and exits 1', async () => {
    const receiver = await startReceiver();
    try {
      const fixtures = allFixtures().slice(0, 2);
      const file = writeLines('replay-bad.jsonl', [
        serialiseRecord(recordOf(fixtures[0]!.type, JSON.stringify(fixtures[0]!.payload))),
        '{"oops"',
        serialiseRecord(recordOf(fixtures[1]!.type, JSON.stringify(fixtures[1]!.payload))),
      ]);
      const run = await runCli(['replay', file, '--to', receiver.url]);
      expect(run.code).toBe(1);
      // line 1 may still be in flight (16 at once by default) when line 2 is read
      expect(run.stdout).toMatch(/[12]\/3 line 2 → FAILED: line 2: invalid JSON/);
      expect(run.stdout).toContain('3/3 line 3 ');
      expect(run.stdout).toContain('2 ok, 1 failed');
      await receiver.router.idle();
      expect(receiver.received).toHaveLength(2);
      expect(run.stdout + run.stderr).not.toMatch(STACK_LINE);
    } finally {
      await receiver.close();
    }
  });

  it('reports the receiver refusing a payload (wrong token) and exits 1', async () => {
    const receiver = await startReceiver('right');
    try {
      const { file } = goodFile('replay-token.jsonl');
      const run = await runCli(['replay', file, '--to', receiver.url, '--token', 'wrong']);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('FAILED: answered 401');
    } finally {
      await receiver.close();
    }
  });

  it('stops at an unreachable URL with one clear line and exits 1', async () => {
    const { file } = goodFile('replay-unreachable.jsonl');
    const port = await unusedPort();
    const run = await runCli(['replay', file, '--to', `http://127.0.0.1:${port}/webhooks`]);
    expect(run.code).toBe(1);
    // the requests already in flight when the first one failed finish: 1 to 16 of them
    expect(run.stderr).toMatch(
      new RegExp(
        `error: cannot reach http://127\\.0\\.0\\.1:${port}: connection refused; stopped after \\d+ of`,
      ),
    );
    expect(run.stdout + run.stderr).not.toMatch(STACK_LINE);
  });

  it('reports a missing file, a missing --to and a bad --speed without a stack trace', async () => {
    const missing = await runCli([
      'replay',
      join(dir, 'missing.jsonl'),
      '--to',
      'http://127.0.0.1:9/webhooks',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file');
    const noTarget = await runCli(['replay', join(dir, 'missing.jsonl')]);
    expect(noTarget.code).toBe(1);
    expect(noTarget.stderr).toContain("required option '--to <url>' not specified");
    const { file } = goodFile('replay-speed.jsonl');
    const badSpeed = await runCli(['replay', file, '--to', 'http://127.0.0.1:9/', '--speed', 'fast']);
    expect(badSpeed.code).toBe(1);
    expect(badSpeed.stderr).toContain('--speed: expected none, original or a positive number');
    for (const run of [missing, noTarget, badSpeed]) expect(run.stderr).not.toMatch(STACK_LINE);
  });
});

describe('messaging-webhooks demo', () => {
  it('plays the scenario, names every callback type, shuts down and exits 0', async () => {
    const run = await runCli(['demo'], 30_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const callback of ['onIncoming', 'onStatus', 'onSession', 'onEvent', 'onChatbot']) {
      expect(run.stdout).toContain(`◀ ${callback}`);
    }
    expect(run.stdout).toContain('v2 INCOMING TEXT');
    expect(run.stdout).toContain('v2 OUTGOING TEXT');
    expect(run.stdout).toContain('DELIVERED message');
    expect(run.stdout).toContain('IGNORED (regression: already READ)');
    expect(run.stdout).toContain('USER_PREFERENCE 27831234567 stop');
    expect(run.stdout).toContain('disconnected');
    expect(run.stdout).not.toContain('✗');
    expect(run.stdout).toContain('Shut down cleanly.');
  });

  it('captures its traffic with --capture, and the capture validates', async () => {
    const file = join(dir, 'demo', 'capture.jsonl');
    const run = await runCli(['demo', '--capture', file], 30_000);
    expect(run.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(run.stdout).toContain(`captured ${lines.length} requests to ${file}`);
    expect(lines.length).toBeGreaterThan(15);
    const validated = await runCli(['validate', file]);
    expect(validated.code).toBe(0);
    expect(validated.stdout).toContain(`${lines.length} valid, 0 invalid`);
  });
});
