// Part 4 of `npm run reliability`: 200 chatbot eventIds and 200 status gstIds of ~1 MB each into
// a node handler whose process has a 128 MB heap (reliability/identities-server.js), with the
// default dedupe store and delivery tracker and without them: the process must stay alive, and
// the difference in retained heap is what the store and the tracker keep per event.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { buildChatbotEvent, buildStatus } from '../../dist/testing/index.js';
import { fixed, int, table } from '../lib/table.js';
import { MiB, sleep } from './common.js';

const SERVER = fileURLToPath(new URL('./identities-server.js', import.meta.url));

async function identitiesRun(plain) {
  const EACH = 200;
  const child = fork(SERVER, [JSON.stringify({ plain })], {
    execArgv: ['--max-old-space-size=128', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const { port, before } = await new Promise((resolve) => child.once('message', resolve));
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 4 });
  const big = (i) => `${i}-`.padEnd(MiB - 4096, 'y');
  let survived = 0;
  let failed = 0;
  const deadline = Date.now() + 60_000;
  let requests = 0;
  // Bodies made one at a time (each ~1 MB), alternating a chatbot event and a status receipt.
  for (let i = 0; i < 2 * EACH; i += 1) {
    if (Date.now() > deadline || child.exitCode !== null) break;
    const n = i >> 1;
    const [path, body] =
      i % 2 === 0
        ? ['/hooks/chatbot', JSON.stringify(buildChatbotEvent({ eventId: big(n) }))]
        : ['/hooks/status', JSON.stringify(buildStatus({ gstId: big(n) }))];
    requests += 1;
    try {
      const res = await pool.request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.body.text();
      if (res.statusCode === 200) survived += 1;
      else failed += 1;
    } catch {
      failed += 1;
    }
  }
  await pool.close();
  let measured;
  if (child.exitCode === null) {
    measured = await new Promise((resolve) => {
      child.once('message', resolve);
      child.send('measure');
    });
    child.disconnect();
  }
  const exited = await Promise.race([exit, sleep(5000).then(() => undefined)]);
  return {
    dedupeAndTracker: !plain,
    requests,
    answered200: survived,
    failed,
    ran: measured?.ran,
    heapBeforeMB: before / 1e6,
    heapAfterMB: measured ? measured.after / 1e6 : undefined,
    retainedMB: measured ? (measured.after - before) / 1e6 : undefined,
    crashed: measured === undefined,
    exit: exited,
  };
}

export async function run() {
  const runs = [await identitiesRun(false), await identitiesRun(true)];
  const [full, plain] = runs;
  const dedupeAndTrackerBytes =
    full.retainedMB !== undefined && plain.retainedMB !== undefined
      ? (full.retainedMB - plain.retainedMB) * 1e6
      : undefined;
  console.log(
    '\nPart 4: 1 MB identities (server child: --max-old-space-size=128 --expose-gc, bodyLimit 1 MiB; 200 chatbot eventIds + 200 status gstIds of ~1 MB)',
  );
  console.log(
    table(
      [
        'receiver',
        'requests',
        '200',
        'failed',
        'callbacks run',
        'heap before MB',
        'heap after GC MB',
        'retained MB',
        'process',
      ],
      runs.map((r) => [
        r.dedupeAndTracker ? 'defaults (dedupe + tracker)' : 'dedupe: false, statusTracking: false',
        r.requests,
        r.answered200,
        r.failed,
        r.ran,
        fixed(r.heapBeforeMB, 1),
        fixed(r.heapAfterMB, 1),
        fixed(r.retainedMB, 2),
        r.crashed ? 'DIED' : 'alive',
      ]),
    ),
  );
  console.log(
    `retained by the dedupe store and the tracker (difference): ${int(dedupeAndTrackerBytes / 1000)} kB, ${int(dedupeAndTrackerBytes / 400)} B per event`,
  );
  return { runs, dedupeAndTrackerBytes };
}
