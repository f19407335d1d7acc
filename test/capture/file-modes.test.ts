// Issue 24 item 4: spill, dead-letter and capture files were created 0644 in 0755 directories
// (phone numbers and message text readable by every local user), and a symbolic link at the
// file's path was followed and appended to.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createJsonlSink,
  deadLettersToJsonl,
  spillToJsonl,
  type JsonlSinkOptions,
} from '../../src/capture/index.js';
import type { AnyWebhookJob, DeadLetter, UnfinishedJob } from '../../src/dispatch/types.js';
import { buildIncoming, createJsonlCapture } from '../../src/testing/index.js';

// The modes asked for are before the process umask, as open(2) and mkdir(2) apply it. A common
// umask is set for these tests: under 077 the old 0644 would have come out 0600 as well.
const UMASK = 0o022;
let previousUmask: number;
beforeAll(() => {
  previousUmask = process.umask(UMASK);
});
afterAll(() => {
  process.umask(previousUmask);
});
const modeOf = (path: string): number => statSync(path).mode & 0o777;

const job: AnyWebhookJob = {
  type: 'incoming',
  payload: buildIncoming({ gstId: 'gst-file-modes', text: 'hello', sender: '27825550000' }),
  requestId: 'req-1',
  receivedAt: Date.now(),
  orderingKey: 'k',
  dedupeKey: undefined,
  payloadVersion: undefined,
};
const deadLetter: DeadLetter = { job, error: new Error('failed'), attempts: 3 };
const unfinished: UnfinishedJob = { job, attempts: 0 };

/** Each writer of the library, writing one line to `file` and waiting for the disk. */
const WRITERS: readonly [string, (file: string, options?: JsonlSinkOptions) => Promise<void>][] = [
  [
    'createJsonlSink',
    async (file, options) => {
      const sink = createJsonlSink(file, options);
      sink.write('{"line":1}');
      await sink.close();
    },
  ],
  ['spillToJsonl', (file, options) => spillToJsonl(file, options)([unfinished])],
  [
    'deadLettersToJsonl',
    async (file, options) => {
      const write = deadLettersToJsonl(file, options);
      write(deadLetter);
      await write.close();
    },
  ],
  [
    'createJsonlCapture',
    async (file, options) => {
      const capture = createJsonlCapture({ file, ...options });
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
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-file-modes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.each(WRITERS)('%s', (_name, writeOne) => {
  it('creates the file 0600 and each missing directory 0700 (before the umask)', async () => {
    const file = join(dir, 'spool', 'webhooks', 'out.jsonl');
    await writeOne(file);
    expect(readFileSync(file, 'utf8')).toMatch(/\n$/);
    expect({
      file: modeOf(file),
      parent: modeOf(join(dir, 'spool', 'webhooks')),
      grandparent: modeOf(join(dir, 'spool')),
    }).toEqual({ file: 0o600 & ~UMASK, parent: 0o700 & ~UMASK, grandparent: 0o700 & ~UMASK });
  });

  it('takes other modes from fileMode and directoryMode', async () => {
    const file = join(dir, 'shared', 'out.jsonl');
    await writeOne(file, { fileMode: 0o640, directoryMode: 0o750 });
    expect([modeOf(file), modeOf(join(dir, 'shared'))]).toEqual([0o640 & ~UMASK, 0o750 & ~UMASK]);
  });

  it('refuses a symbolic link at the file path with a clear error, leaving its target untouched', async () => {
    const target = join(dir, 'elsewhere.txt');
    writeFileSync(target, 'not yours\n', { mode: 0o644 });
    const link = join(dir, 'out.jsonl');
    symlinkSync(target, link);
    await expect(writeOne(link)).rejects.toThrow(/out\.jsonl is a symbolic link: refused, not followed/);
    expect(readFileSync(target, 'utf8')).toBe('not yours\n');
    expect(modeOf(target)).toBe(0o644 & ~UMASK);
  });
});

describe('createJsonlSink', () => {
  it('follows a symbolic link in a directory of the path (only the last component is refused)', async () => {
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    const sink = createJsonlSink(join(dir, 'linked', 'out.jsonl'));
    sink.write('{}');
    await sink.close();
    expect(readFileSync(join(dir, 'real', 'out.jsonl'), 'utf8')).toBe('{}\n');
  });

  it('keeps the mode of a file that already exists', async () => {
    const file = join(dir, 'existing.jsonl');
    writeFileSync(file, '', { mode: 0o644 });
    const sink = createJsonlSink(file);
    sink.write('{}');
    await sink.close();
    expect(modeOf(file)).toBe(0o644 & ~UMASK);
  });

  it.each([
    ['fileMode', { fileMode: -1 }],
    ['fileMode', { fileMode: 0.5 }],
    ['directoryMode', { directoryMode: 0o10000 }],
  ])('throws a TypeError naming a wrong %s', (name, options) => {
    expect(() => createJsonlSink(join(dir, 'x.jsonl'), options)).toThrow(new RegExp(`^${name}: expected`));
  });
});
