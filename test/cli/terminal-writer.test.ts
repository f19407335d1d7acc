import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createEmulator } from '../../src/emulator/index.js';
import { sseFrame } from '../../src/relay/sse.js';
import { pingRedis, SHARED_REDIS_PORT } from '../redis/helpers.js';
import {
  assertBuilt,
  runCli,
  spawnCli,
  STACK_LINE,
  waitForExit,
  waitForOutput,
  type CliRun,
} from './run-cli.js';

// Every command's output, with hostile text in everything it prints (a state file's e-mails and
// keys, configured URLs, payload text, capture record paths, JSON error snippets, queue and
// delivery ids, a relay's events): what reaches the terminal, stdout and stderr, holds no control
// character, and the hostile text is shown escaped.

// eslint-disable-next-line no-control-regex -- what a terminal acts on (tab and line feed excepted)
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** An OSC title change, a screen clear, an 8-bit CSI, a bidi override. */
const HOSTILE = '\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e';
/** How the writer shows the hostile text's first character. */
const SHOWN = '\\u001b';

const dir = mkdtempSync(join(tmpdir(), 'mw-terminal-'));
const outputs: { name: string; run: CliRun }[] = [];
afterAll(() => {
  // every command above was walked (a renamed or dropped one fails here, not silently)
  expect(outputs.map((o) => o.name.split(' ')[0])).toEqual(
    expect.arrayContaining([
      'emulator',
      'trigger',
      'logs',
      'resend',
      'validate',
      'replay',
      'dlq',
      'relay',
      'listen',
    ]),
  );
});

/** No control character and no stack trace; with `echoes`, the hostile text is there, escaped. */
function check(name: string, run: CliRun, echoes = true): void {
  outputs.push({ name, run });
  expect(run.stdout).not.toMatch(CONTROL);
  expect(run.stderr).not.toMatch(CONTROL);
  expect(run.stderr).not.toMatch(STACK_LINE);
  if (echoes) expect(`${run.stdout}${run.stderr}`).toContain(SHOWN);
}

/** Runs a long-running command until `ready` shows, then stops it with SIGINT and returns its whole output. */
async function runUntil(
  args: readonly string[],
  ready: RegExp,
  then?: (match: RegExpMatchArray) => Promise<void>,
): Promise<CliRun> {
  const child: ChildProcessWithoutNullStreams = spawnCli(args);
  const exited = waitForExit(child, 60_000);
  try {
    const match = await waitForOutput(child, ready, 20_000);
    await then?.(match);
  } finally {
    child.kill('SIGINT');
  }
  return exited;
}

let emulatorChild: ChildProcessWithoutNullStreams;
let emulatorExited: Promise<CliRun>;
let emulatorUrl = '';
const hostileState = join(dir, 'state.json');

beforeAll(async () => {
  assertBuilt();
  const seeded = createEmulator();
  const snapshot = seeded.snapshot();
  await seeded.close();
  const bob = snapshot.users.find((user) => user.apiKey === 'emu-agent2-key');
  if (bob === undefined) throw new Error('the seed changed: no emu-agent2-key');
  Object.assign(bob, { email: `bob${HOSTILE}@demo.test`, apiKey: `key-${HOSTILE}` });
  writeFileSync(hostileState, JSON.stringify(snapshot));
  emulatorChild = spawnCli([
    'emulator',
    '--port',
    '0',
    '--retry-attempts',
    '1',
    '--show-secrets',
    '--verbose',
  ]);
  emulatorExited = waitForExit(emulatorChild, 120_000);
  [, emulatorUrl = ''] = await waitForOutput(
    emulatorChild,
    /Emulator listening on (http:\/\/\S+)[\s\S]*Press Ctrl\+C/,
  );
  const configure = (incomingMessageURL: string): Promise<Response> =>
    fetch(`${emulatorUrl}/Messaging/MessagingClientWebHook`, {
      method: 'POST',
      headers: { authorization: 'emu-supervisor-key', 'content-type': 'application/json' },
      body: JSON.stringify({ incomingMessageURL }),
    });
  // a URL carrying control characters is refused at the configuration API, naming the field
  const refused = await configure(`http://127.0.0.1:1/in?x=${HOSTILE}&token=${HOSTILE}`);
  expect(refused.status).toBe(400);
  await expect(refused.json()).resolves.toMatchObject({ field: 'incomingMessageURL' });
  // deliveries to print: the hostile text arrives in payloads and the receiver's refusals instead
  const configured = await configure(`http://127.0.0.1:1/in?x=${encodeURIComponent(HOSTILE)}&token=s3cret`);
  expect(configured.status).toBe(200);
});
afterAll(async () => {
  emulatorChild.kill('SIGINT');
  // its delivery lines print the configured URL, which can no longer carry a control character
  check('emulator --verbose (its delivery log lines)', await emulatorExited, false);
});

describe('the terminal writer: no control character from any command reaches the terminal', () => {
  it('emulator: the banner with e-mails and keys from a hostile --state file', async () => {
    check(
      'emulator --state',
      await runUntil(['emulator', '--port', '0', '--state', hostileState, '--show-secrets'], /Press Ctrl\+C/),
    );
  });

  it('emulator: an error line quoting a hostile --state file', async () => {
    const broken = join(dir, `broken${HOSTILE}.json`);
    writeFileSync(broken, `{"version": "${HOSTILE}"`);
    check('emulator --state (not JSON)', await runCli(['emulator', '--port', '0', '--state', broken]));
  });

  it('trigger and logs: delivery URLs, payload text and the emulator refusals', async () => {
    check(
      'trigger',
      await runCli([
        'trigger',
        'customer-message',
        '--emulator',
        emulatorUrl,
        '--text',
        HOSTILE,
        '--show-secrets',
      ]),
      false, // it prints the delivery URL, not the text
    );
    check(
      'trigger (refused)',
      await runCli(['trigger', 'customer-message', '--emulator', emulatorUrl, '--from', HOSTILE]),
      false, // the refusal names the field, not the value
    );
    const payload = join(dir, 'payload.json');
    writeFileSync(payload, JSON.stringify({ from: '+27831234567', contentType: HOSTILE }));
    check(
      'trigger --payload (refused)',
      await runCli(['trigger', 'customer-message', '--emulator', emulatorUrl, '--payload', payload]),
      false,
    );
    check('logs', await runCli(['logs', '--emulator', emulatorUrl, '--show-secrets']));
    check('logs --json', await runCli(['logs', '--emulator', emulatorUrl, '--json']));
    check('resend', await runCli(['resend', '1', '--emulator', emulatorUrl, '--show-secrets']), false);
    check('resend (unknown id)', await runCli(['resend', HOSTILE, '--emulator', emulatorUrl]), false);
  });

  it('validate and replay: record paths and JSON error snippets from a capture file', async () => {
    const capture = join(dir, 'capture.jsonl');
    writeFileSync(
      capture,
      [
        JSON.stringify({
          receivedAt: '2026-01-01T00:00:00.000Z',
          path: `/incoming${HOSTILE}`,
          type: 'incoming',
          headers: {},
          body: `{"text":"${HOSTILE}"`,
        }),
        `{"path": "${HOSTILE}`,
        JSON.stringify({
          receivedAt: '2026-01-01T00:00:00.000Z',
          path: '/incoming',
          type: 'incoming',
          headers: {},
          body: JSON.stringify({ sender: HOSTILE }),
        }),
      ].join('\n'),
    );
    check('validate', await runCli(['validate', capture, '--verbose']));
    // replay refuses the hostile path without echoing it
    check('replay', await runCli(['replay', capture, '--to', 'http://127.0.0.1:1/webhooks']), false);
  });

  it('dlq: a hostile queue name and id in its messages', async () => {
    // the shared Redis (CI starts one); without it the error line is checked all the same
    const redis = `redis://127.0.0.1:${SHARED_REDIS_PORT}`;
    const reachable = (await pingRedis(SHARED_REDIS_PORT)).ok;
    check(
      'dlq list',
      await runCli(['dlq', 'list', '--redis', redis, '--queue-name', `q${HOSTILE}`]),
      reachable,
    );
    check(
      'dlq show',
      await runCli(['dlq', 'show', HOSTILE, '--redis', redis, '--queue-name', `q${HOSTILE}`]),
      reachable,
    );
  });

  it('relay and listen: a base path, and a relay sending hostile events', async () => {
    check(
      'relay',
      await runUntil(
        [
          'relay',
          '--port',
          '0',
          '--host',
          '127.0.0.1',
          '--secret',
          'relay-secret-0123456789',
          '--base-path',
          `/${HOSTILE}`,
        ],
        /On your machine/,
      ),
    );
    // a relay that sends one event whose fields are hostile, then keeps the stream open
    const event = {
      id: 1,
      orderingKey: HOSTILE,
      requestId: HOSTILE,
      record: {
        receivedAt: HOSTILE,
        path: `/${HOSTILE}`,
        type: HOSTILE,
        headers: { 'x-evil': HOSTILE },
        body: HOSTILE,
      },
    };
    const fake: Server = createServer((req, res) => {
      if (req.url?.startsWith('/_relay/events') === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sseFrame({ id: '1', event: 'webhook', data: JSON.stringify(event) }));
        res.write(sseFrame({ event: 'dropped', data: '{"dropped": 3}' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    fake.listen(0, '127.0.0.1');
    await once(fake, 'listening');
    const relayUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const app = createServer((_req, res) => res.writeHead(500).end(HOSTILE));
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    try {
      check(
        'listen',
        await runUntil(['listen', '--relay', relayUrl, '--secret', 'x', '--forward-to', appUrl], /#1 /),
      );
    } finally {
      fake.closeAllConnections();
      app.closeAllConnections();
      fake.close();
      app.close();
    }
  });

  it('commander itself: an unknown command and a bad option value', async () => {
    check('unknown command', await runCli([`x${HOSTILE}`]));
    check('bad option value', await runCli(['logs', '--type', HOSTILE]));
  });
});
