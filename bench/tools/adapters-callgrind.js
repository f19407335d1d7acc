// Instructions per request of the bench's servers, counted by valgrind's callgrind: immune to the
// load of other processes on the machine, unlike req/s. Each server (bench/servers/serve.js, any
// kind and variant, its dedupe store full as in scenario 1) runs under callgrind; a client here
// sends `--warmup` requests (JIT tiers and heap settle), callgrind's counters are zeroed,
// `--requests` more are sent, and the counters are dumped: instructions ÷ requests, background
// threads (V8's compiler, GC helpers) included.
//
//   node bench/tools/adapters-callgrind.js [--kinds=fastify-bare,fastify-plugin] [--types=chatbot,incoming]
//                                    [--warmup=6000] [--requests=2000] [--connections=8] [--keep]
//
// --keep: leave each dump (the measured window only) in /tmp and print its path, for
// `callgrind_annotate --inclusive=yes <dump>`: which native functions (GC, hashing, Map lookups)
// the instructions go to.
//
// Kinds: those of bench/servers/serve.js, with a variant after a colon (servers/options.js).
// Slow (a server under callgrind runs ~50× slower): a few minutes per kind and type.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { createProgram, integer, list, parseArgs } from '../lib/args.js';
import { createBodyFactory, pathOf, WEBHOOK_TYPES } from '../lib/bodies.js';
import { SERVER_CPU, startChild } from '../lib/proc.js';

const options = parseArgs(
  createProgram('adapters-callgrind', 'Instructions (or CPU µs) per request of bench servers.')
    .option('--kinds <list>', 'server kinds (servers/serve.js)', list(), [
      'fastify-bare',
      'fastify-plugin',
      'hono-bare',
      'hono-fetch',
    ])
    .option('--types <list>', 'webhook types', list(WEBHOOK_TYPES), ['chatbot', 'incoming'])
    .option('--warmup <n>', 'requests before the measured window', integer(), 6000)
    .option('--requests <n>', 'requests in the measured window', integer(), 2000)
    .option('--connections <n>', 'keep-alive connections', integer(), 8)
    .option('--cpu', "no valgrind: the server's own CPU time (process.cpuUsage) per request instead")
    .option('--keep', 'keep each callgrind dump and print its path'),
);
const KINDS = options.kinds;
const TYPES = options.types;
const WARMUP = options.warmup;
const REQUESTS = options.requests;
const CONNECTIONS = options.connections;
const CPU = options.cpu === true;
const KEEP = options.keep === true;
const SERVE = 'servers/serve.js';

function startServer(kind) {
  if (CPU) {
    return startChild(SERVE, {
      cpu: SERVER_CPU,
      args: [JSON.stringify({ kind, fullStores: true })],
    }).then((server) => ({ server, port: server.hello.port }));
  }
  const script = fileURLToPath(new URL(`../${SERVE}`, import.meta.url));
  const out = `/tmp/callgrind-${kind}-${process.pid}-${Date.now()}.out`;
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      `--callgrind-out-file=${out}`,
      process.execPath,
      script,
      JSON.stringify({ kind, fullStores: true }),
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
  );
  return new Promise((resolve, reject) => {
    child.once('message', (hello) => resolve({ child, port: hello.port, out }));
    child.once('exit', (code) => reject(new Error(`${kind} exited (${code}) before it was ready`)));
  });
}

/** Sends `count` POSTs of `type` bodies over `CONNECTIONS` keep-alive connections. */
/**
 * The warm-up and the measured requests share one agent, so its connections: new sockets in the
 * measured window made V8 deoptimise and recompile node's stream and http functions there
 * (TurboFan threads then ran ~100k instructions per request on top of the server's own work).
 */
async function send(agent, port, type, count) {
  const nextBody = createBodyFactory(type);
  const path = pathOf(type);
  let left = count;
  let failed = 0;
  // A keep-alive socket the server closed while idle (Node's 5 s keepAliveTimeout, which a server
  // slowed down 50× by callgrind can reach) resets the next request on it: sent again once.
  const one = (retried = false) =>
    new Promise((resolve, reject) => {
      const body = nextBody();
      const req = http.request(
        {
          port,
          host: '127.0.0.1',
          path,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          if (res.statusCode !== 200) failed += 1;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', (error) => {
        if (error.code === 'ECONNRESET' && !retried) one(true).then(resolve, reject);
        else reject(error);
      });
      req.end(body);
    });
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  if (failed > 0) throw new Error(`${failed} answers were not 200`);
}

function control(pid, flag) {
  const result = spawnSync('callgrind_control', [flag, String(pid)], { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`callgrind_control ${flag}: ${result.stderr || result.stdout}`);
}

function totalOf(file) {
  const text = readFileSync(file, 'utf8');
  const match = /^(?:summary|totals):\s*(\d+)/m.exec(text);
  if (!match) throw new Error(`no totals in ${file}`);
  return Number(match[1]);
}

const rows = [];
for (const type of TYPES) {
  for (const kind of KINDS) {
    if (CPU) {
      const { server, port } = await startServer(kind);
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
      try {
        await send(agent, port, type, WARMUP);
        const before = (await server.call('probe')).cpu;
        await send(agent, port, type, REQUESTS);
        const after = (await server.call('probe')).cpu;
        const user = (after.user - before.user) / REQUESTS;
        const system = (after.system - before.system) / REQUESTS;
        const perRequest = user + system;
        rows.push({ type, kind, perRequest, user, system });
        console.log(
          `${type}\t${kind}\t${perRequest.toFixed(1)} CPU µs/request (user ${user.toFixed(1)}, system ${system.toFixed(1)})`,
        );
      } finally {
        agent.destroy();
        await server.stop();
      }
      continue;
    }
    const { child, port, out } = await startServer(kind);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    try {
      await send(agent, port, type, WARMUP);
      control(child.pid, '-z');
      await send(agent, port, type, REQUESTS);
      control(child.pid, '-d');
      // callgrind_control -d writes <out>.<n>-<thread> (threads separated): the dump after the
      // zero, one file per thread; thread 01 is the main thread (the event loop), the others are
      // V8's and libuv's helpers (TurboFan, GC, the thread pool).
      const dumps = readdirSync(dirname(out))
        .filter((name) => name.startsWith(`${basename(out)}.1-`))
        .map((name) => join(dirname(out), name));
      const main = dumps.find((file) => file.endsWith('-01'));
      const perRequest = dumps.reduce((sum, file) => sum + totalOf(file), 0) / REQUESTS;
      const mainPerRequest = main === undefined ? Number.NaN : totalOf(main) / REQUESTS;
      rows.push({ type, kind, perRequest, mainPerRequest });
      console.log(
        `${type}\t${kind}\t${Math.round(perRequest)} instructions/request (main thread ${Math.round(mainPerRequest)})${KEEP ? `\t${dumps.join(' ')}` : ''}`,
      );
      if (!KEEP) for (const file of dumps) rmSync(file, { force: true });
    } finally {
      agent.destroy();
      child.kill('SIGKILL');
      for (const name of readdirSync(dirname(out))) {
        if (name.startsWith(basename(out)) && !name.startsWith(`${basename(out)}.1-`))
          rmSync(join(dirname(out), name), { force: true });
      }
    }
  }
}
console.log(JSON.stringify(rows));
