// The one file opener (src/util/files.ts) and the writers and readers moved onto it: owner-only
// modes, no symbolic link followed, regular files only, and never waiting on a FIFO. A FIFO used
// to block its open forever (a capture, a spill or dead-letter sink held a libuv thread each;
// `--state` at a FIFO blocked the CLI), and `--save-state` wrote every key through a predictable
// `<file>.<pid>.tmp` opened with writeFileSync (0644, following a planted symbolic link).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlSink, deadLettersToJsonl, spillToJsonl } from '../../src/capture/index.js';
import { startEmulatorCommand, stopEmulatorCommand } from '../../src/cli/emulator.js';
import type { CliIo } from '../../src/cli/output.js';
import type { AnyWebhookJob } from '../../src/dispatch/types.js';
import { createEmulator } from '../../src/emulator/index.js';
import { buildIncoming, createJsonlCapture, readCapture, replay } from '../../src/testing/index.js';
import {
  openAppendStream,
  openRegularFile,
  readRegularFile,
  UnsafeFileError,
  writeFileAtomically,
} from '../../src/util/files.js';

const UMASK = 0o022;
let previousUmask: number;
beforeAll(() => {
  previousUmask = process.umask(UMASK);
});
afterAll(() => {
  process.umask(previousUmask);
});
const modeOf = (path: string): number => statSync(path).mode & 0o777;

let dir: string;
const valves: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-files-'));
});
afterEach(() => {
  for (const valve of valves.splice(0)) valve.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A FIFO at `path`, with a safety valve: a shell that opens its other end after a while, so that a
 * writer or reader that waits on the FIFO (the bug) is released and the test fails on its
 * assertion instead of hanging the test process. A fixed open is answered long before it.
 */
function fifo(path: string, valve: 'reader' | 'writer' | 'none' = 'none'): string {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${String(made.stderr)}`);
  if (valve !== 'none') {
    const script = valve === 'reader' ? `sleep 10; cat "${path}" > /dev/null` : `sleep 10; : > "${path}"`;
    valves.push(spawn('sh', ['-c', script], { stdio: 'ignore' }));
  }
  return path;
}

const job: AnyWebhookJob = {
  type: 'incoming',
  payload: buildIncoming({ gstId: 'gst-files', text: 'hello', sender: '27825550000' }),
  requestId: 'req-1',
  receivedAt: Date.now(),
  orderingKey: 'k',
  dedupeKey: undefined,
  payloadVersion: undefined,
};

const FIFO_REFUSED = /is a FIFO \(named pipe\): refused/;

describe('writers at a FIFO: refused at once, never waited on', () => {
  it.each([
    [
      'createJsonlSink',
      async (file: string) => {
        const sink = createJsonlSink(file);
        sink.write('{}');
        await sink.close();
      },
    ],
    ['spillToJsonl', (file: string) => spillToJsonl(file)([{ job, attempts: 0 }])],
    [
      'deadLettersToJsonl',
      async (file: string) => {
        const write = deadLettersToJsonl(file);
        write({ job, error: new Error('x'), attempts: 3 });
        await write.close();
      },
    ],
    [
      'createJsonlCapture',
      async (file: string) => {
        const capture = createJsonlCapture({ file });
        capture({
          receivedAt: new Date().toISOString(),
          path: '/incoming',
          type: 'incoming',
          headers: {},
          body: '{}',
        });
        await capture.close();
      },
    ],
  ])('%s', async (_name, writeOne) => {
    const path = fifo(join(dir, 'out.jsonl'), 'reader');
    await expect(writeOne(path)).rejects.toThrow(FIFO_REFUSED);
  });

  it('a FIFO that has a reader is refused too (it is not a regular file)', async () => {
    const path = fifo(join(dir, 'read.jsonl'));
    const reader = spawn('sh', ['-c', `exec cat "${path}" > /dev/null`], { stdio: 'ignore' });
    valves.push(reader);
    // the reader holds its end open once the shell runs; the writer's open then succeeds, and the
    // regular-file check refuses it
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stream = openAppendStream(path);
    const error = await new Promise<Error>((resolve) => stream.once('error', resolve));
    expect(error).toBeInstanceOf(UnsafeFileError);
    expect(error.message).toMatch(FIFO_REFUSED);
  });

  it('a device is refused', async () => {
    const stream = openAppendStream('/dev/null');
    const error = await new Promise<Error>((resolve) => stream.once('error', resolve));
    expect(error.message).toBe('/dev/null is a device: refused (only a regular file is used)');
  });
});

describe('readers at a FIFO: refused at once', () => {
  it('readRegularFile', () => {
    const path = fifo(join(dir, 'state.json'), 'writer');
    expect(() => readRegularFile(path)).toThrow(FIFO_REFUSED);
  });

  it('openRegularFile, readCapture and replay (the item is the file error, nothing sent)', async () => {
    const path = fifo(join(dir, 'capture.jsonl'), 'writer');
    await expect(openRegularFile(path)).rejects.toThrow(FIFO_REFUSED);
    await expect(readCapture(path).next()).rejects.toThrow(/cannot read capture file .*is a FIFO/);
    await expect(replay(path, 'http://127.0.0.1:9/')).rejects.toThrow(/is a FIFO/);
  });

  it('readRegularFile refuses a file over its size bound', () => {
    const path = join(dir, 'big.json');
    writeFileSync(path, 'x'.repeat(100));
    expect(() => readRegularFile(path, 10)).toThrow(/is 100 bytes, over the 10 bytes allowed/);
    expect(readRegularFile(path, 100)).toHaveLength(100);
  });
});

describe('writeFileAtomically', () => {
  it('creates the file 0600 through a temporary file it leaves nowhere', () => {
    const file = join(dir, 'state.json');
    writeFileAtomically(file, '{"a":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(modeOf(file)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('replaces a 0644 file with a 0600 one', () => {
    const file = join(dir, 'state.json');
    writeFileSync(file, 'old', { mode: 0o644 });
    writeFileAtomically(file, 'new');
    expect([readFileSync(file, 'utf8'), modeOf(file)]).toEqual(['new', 0o600]);
  });

  it.each([
    [
      'a symbolic link',
      (file: string, target: string) => symlinkSync(target, file),
      /is a symbolic link: refused/,
    ],
    ['a FIFO', (file: string) => void fifo(file), FIFO_REFUSED],
  ])('refuses %s at the target, leaving everything as it was', (_what, plant, message) => {
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'not yours\n', { mode: 0o644 });
    const file = join(dir, 'state.json');
    plant(file, target);
    expect(() => writeFileAtomically(file, 'secret')).toThrow(message);
    expect(readFileSync(target, 'utf8')).toBe('not yours\n');
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'victim.txt']);
  });
});

describe('the emulator command’s --save-state and --state', () => {
  const io: CliIo = { out: () => undefined, err: () => undefined, isTty: false, status: () => undefined };

  it('--save-state writes 0600, and a link planted at the old predictable temporary name is left alone', async () => {
    const file = join(dir, 'state.json');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'not yours\n', { mode: 0o644 });
    symlinkSync(victim, `${file}.${process.pid}.tmp`);
    const emulator = createEmulator();
    await stopEmulatorCommand(emulator, { saveState: file }, io);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1 });
    expect(modeOf(file)).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
    expect(lstatSync(`${file}.${process.pid}.tmp`).isSymbolicLink()).toBe(true);
  });

  it('--state at a FIFO is an error at once, not a wait', async () => {
    const path = fifo(join(dir, 'state.json'), 'writer');
    await expect(startEmulatorCommand({ port: '0', state: path }, io)).rejects.toThrow(
      new RegExp(`--state: cannot read ${path}: ${path} is a FIFO`),
    );
  });
});
