// Part 3 of `npm run reliability`: 500 slow clients trickling a body at 1 byte / 500 ms into the
// node handler (bodyTimeoutMs 2 000, in a child process: reliability/slow-server.js) while
// autocannon sends normal load over 20 connections: the slow ones must get 408 and be closed, the
// normal ones must keep their latency.
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { buildChatbotEvent } from '../../dist/testing/index.js';
import { createBodyFactory } from '../lib/bodies.js';
import { fixed, int, table } from '../lib/table.js';
import { json, sleep } from './common.js';

const SERVER = fileURLToPath(new URL('./slow-server.js', import.meta.url));

function slowClient(port, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let response = '';
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length && !socket.destroyed) socket.write(body.subarray(sent, (sent += 1)));
    }, 500);
    const guard = setTimeout(() => socket.destroy(), 15_000);
    socket.on('connect', () =>
      socket.write(
        `POST /hooks/chatbot HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk) => {
      response += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(guard);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(response)?.[1] ?? 0),
        code: /"code":"([^"]+)"/.exec(response)?.[1],
        ms: performance.now() - started,
        closedByServer: performance.now() - started < 14_900,
      });
    });
  });
}

export async function run() {
  const SLOW = 500;
  const WINDOW_S = 6;
  const child = fork(SERVER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const body = json(buildChatbotEvent({ eventId: 'slow' }));
  // Opened in batches of 50, spread over the first second.
  const slow = [];
  for (let i = 0; i < SLOW; i += 50) {
    for (let j = 0; j < 50; j += 1) slow.push(slowClient(port, body));
    await sleep(20);
  }
  const nextBody = createBodyFactory('chatbot');
  const latencies = [];
  const load = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}/hooks/chatbot`,
        connections: 20,
        duration: WINDOW_S,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: nextBody() }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  const slowResults = await Promise.all(slow);
  const stats = await new Promise((resolve) => {
    child.once('message', (m) => resolve(m.stats));
    child.send('stats');
  });
  child.disconnect();
  latencies.sort((a, b) => a - b);
  const p = (q) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
  const result = {
    slowConnections: SLOW,
    windowSeconds: WINDOW_S,
    bodyTimeoutMs: 2000,
    normal: {
      requests: load.requests.total,
      ok2xx: load['2xx'],
      non2xx: load.non2xx,
      errors: load.errors,
      timeouts: load.timeouts,
      p50: p(0.5),
      p99: p(0.99),
      max: latencies.at(-1),
      perSecond: load.requests.average,
    },
    slow: {
      got408: slowResults.filter((r) => r.status === 408 && r.code === 'request_timeout').length,
      closedByServer: slowResults.filter((r) => r.closedByServer).length,
      other: slowResults.filter((r) => r.status !== 408).map((r) => r.status),
      msMin: Math.min(...slowResults.map((r) => r.ms)),
      msMax: Math.max(...slowResults.map((r) => r.ms)),
    },
    stats,
  };
  console.log(
    `\nPart 3: slow clients (${SLOW} connections trickling 1 byte / 500 ms, node handler, bodyTimeoutMs 2,000, ${WINDOW_S} s of autocannon, 20 connections)`,
  );
  console.log(
    table(
      [
        'normal requests',
        '2xx',
        'non-2xx',
        'errors',
        'p50 ms',
        'p99 ms',
        'slow: 408',
        'slow: closed by server',
        'slow: answered after ms',
      ],
      [
        [
          result.normal.requests,
          result.normal.ok2xx,
          result.normal.non2xx,
          result.normal.errors + result.normal.timeouts,
          fixed(result.normal.p50),
          fixed(result.normal.p99),
          `${result.slow.got408}/${SLOW}`,
          `${result.slow.closedByServer}/${SLOW}`,
          `${int(result.slow.msMin)}–${int(result.slow.msMax)}`,
        ],
      ],
    ),
  );
  return result;
}
