import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/program.js';
import type { CliIo } from '../../src/cli/output.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';

// What a terminal acts on: any of these in a written line is a hole in the one writer.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Text an attacker chooses: terminal sequences and separators among any code units. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .array(
      fc.constantFrom(
        '\u001b]0;owned\u0007',
        '\u001b[2J',
        '\u009b31m',
        '\r',
        '\u202e',
        '\u2028',
        '\u0000',
        'x',
      ),
      { maxLength: 8 },
    )
    .map((parts) => parts.join('')),
);

interface Recorded {
  readonly io: CliIo;
  readonly lines: string[];
}

/** A terminal that keeps every line and status line it is given, exactly as written. */
function recorder(): Recorded {
  const lines: string[] = [];
  return {
    lines,
    io: {
      out: (line) => void lines.push(line),
      err: (line) => void lines.push(line),
      isTty: false,
      status: (text) => void lines.push(text),
    },
  };
}

let emulator: Emulator;
let url: string;
let dir: string;

beforeAll(async () => {
  emulator = createEmulator();
  url = await emulator.listen();
  dir = mkdtempSync(join(tmpdir(), 'mw-hostile-cli-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('every CLI command, driven with generated hostile values', () => {
  it('writes no control character to the terminal, exits with a code, and leaves the emulator usable', async () => {
    let runs = 0;
    let file = 0;
    await fc.assert(
      fc.asyncProperty(hostile, hostile, hostile, async (text, from, path) => {
        runs += 1;
        const capture = join(dir, `capture-${(file += 1)}.jsonl`);
        writeFileSync(
          capture,
          [
            JSON.stringify({
              receivedAt: '2026-01-01T00:00:00.000Z',
              path,
              type: 'incoming',
              headers: {},
              body: text,
            }),
            JSON.stringify({
              path: `/incoming${path}`,
              headers: { 'x-request-id': from },
              body: `{"text":${JSON.stringify(text)}}`,
            }),
            text,
          ].join('\n'),
        );
        const commands: readonly (readonly string[])[] = [
          ['trigger', 'customer-message', '--emulator', url, '--text', text],
          ['trigger', 'customer-message', '--emulator', url, '--from', from, '--text', text],
          ['trigger', 'status', '--emulator', url, '--gst-id', from],
          ['logs', '--emulator', url, '--limit', '5'],
          ['logs', '--emulator', url, '--json', '--number', from],
          ['resend', from, '--emulator', url],
          ['validate', capture, '--verbose'],
          ['replay', capture, '--to', 'http://127.0.0.1:1/webhooks'],
          [text],
          // a trailing ':' keeps the port invalid: a valid one would start an emulator that waits for Ctrl+C
          ['emulator', '--port', `${from}:`],
          ['trigger', from],
        ];
        for (const args of commands) {
          const terminal = recorder();
          const code = await main(['node', 'messaging-webhooks', ...args], terminal.io);
          expect(typeof code).toBe('number');
          for (const line of terminal.lines) expect(line.replace(/[\t\n]/g, '')).not.toMatch(CONTROL);
        }
      }),
      { seed: 20261128, numRuns: 25 },
    );
    // the emulator took every refused and accepted trigger and is still whole
    expect(() => emulator.snapshot()).not.toThrow();
    expect(runs).toBe(25);
    // main() returns its code: a failing command run in this process leaves the process's own alone
    expect(process.exitCode).toBeUndefined();
    process.stdout.write(`hostile CLI property: ${runs} runs, 11 commands each\n`);
  }, 120_000);
});
