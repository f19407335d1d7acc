// Issue 16, gap 1: with default options, 119 chatbot events whose eventId was ~1 MB exhausted a
// 128 MB heap (the dedupe LRU, bounded by key count, kept every identity), and status gstIds
// twice as fast (the delivery tracker kept a second copy). The receiver now runs in a child with
// --max-old-space-size=128 and must survive 200 of each, with its retained heap bounded.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = path.resolve(process.cwd(), 'dist', 'index.js');
const EVENTS = 200;
const IDENTITY_LENGTH = 1_000_000;

/**
 * The child: the BUILT library's pipeline with default options (1 MiB body limit, in-memory
 * dedupe and delivery tracking), fed EVENTS chatbot events and EVENTS status receipts whose
 * identity is ~1 MB, each answered and run before the next. Prints one JSON line.
 */
const script = `
import { createWebhookPipeline } from ${JSON.stringify(pathToFileURL(DIST).href)};
const heap = () => { for (let i = 0; i < 4; i += 1) globalThis.gc(); return process.memoryUsage().heapUsed; };
const runs = { chatbot: 0, status: 0 };
const pipeline = createWebhookPipeline({
  onChatbot: () => { runs.chatbot += 1; },
  onStatus: () => { runs.status += 1; },
});
const base = { chatbot: ${JSON.stringify({ eventId: '', chatParticipantId: 'p1' })}, status: {} };
const answers = {};
const before = heap();
const filler = (i) => String(i).padStart(8, '0') + 'x'.repeat(${IDENTITY_LENGTH} - 8);
async function post(path, body) {
  const head = pipeline.head({ method: 'POST', url: path, header: (n) => (n === 'content-type' ? 'application/json' : undefined) });
  const answer = await pipeline.accept(head, { raw: body });
  answers[answer.status] = (answers[answer.status] ?? 0) + 1;
  await pipeline.idle();
}
const fixtures = JSON.parse(process.env.MW_FIXTURES);
for (let i = 0; i < ${EVENTS}; i += 1) {
  await post('/chatbot', JSON.stringify({ ...fixtures.chatbot, eventId: filler(i) }));
  await post('/status', JSON.stringify({ ...fixtures.status, gstId: filler(i) }));
}
const after = heap();
process.stdout.write(JSON.stringify({ runs, answers, retainedBytes: after - before, heapUsed: after }) + '\\n');
`;

describe('dedupe memory with ~1 MB identities (issue 16)', () => {
  it(`survives ${EVENTS} chatbot events and ${EVENTS} status receipts with ~1 MB identities in a 128 MB heap`, async () => {
    if (!existsSync(DIST)) throw new Error('dist/index.js is missing: run `npm run build` first');
    const { fixtures } = await import('../../src/testing/fixtures.js');
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=128', '--expose-gc', '--input-type=module', '-e', script],
      {
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          MW_FIXTURES: JSON.stringify({
            chatbot: fixtures.chatbot.v1.INCOMING,
            status: fixtures.status.DELIVERED,
          }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = await new Promise<number | string>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
    );
    // A child that ran out of heap says so on stderr ("JavaScript heap out of memory").
    const fatal = stderr.split('\n').find((line) => /FATAL|out of memory/.test(line)) ?? '';
    expect({ exit, fatal }).toEqual({ exit: 0, fatal: '' });
    const result = JSON.parse(stdout) as {
      runs: { chatbot: number; status: number };
      answers: Record<string, number>;
      retainedBytes: number;
    };
    process.stdout.write(`1 MB identities: ${JSON.stringify(result)}\n`);
    expect(result.runs).toEqual({ chatbot: EVENTS, status: EVENTS });
    expect(result.answers).toEqual({ 200: 2 * EVENTS });
    // 400 remembered identities: digests, a few hundred bytes each, not 400 MB.
    expect(result.retainedBytes).toBeLessThan(4 * 1024 * 1024);
  }, 120_000);
});
