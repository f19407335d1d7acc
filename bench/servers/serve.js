// One server under test, in its own process (started by the runner's startServer, pinned to the
// server CPU). argv[2] is a JSON config `{ kind, ...options }`; `kind` may carry a variant after
// a colon (`fastify-plugin:no-dedupe`, servers/options.js). The kind's module builds it; this
// file makes it listen on 127.0.0.1 (port 0), reports `{ ready, port }`, then answers `probe`
// (CPU time, memory, the receiver's stats), `profileStart`/`profileStop` (a CPU profile of a
// window, tools/adapters-profile.js) and `poke` (the kind's work on a clock, done once now:
// lib/instructions.js) until stopped.
//
// A kind module exports `kinds`: name → (config) → { server } (an http.Server, not yet listening)
// or { port } (already listening), plus `receiver` (anything with stats()), `probe` (extra
// fields for the probe) and `poke` (what the kind does on a clock, e.g. a metrics scrape) when it
// has them.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { serveCommands } from '../lib/proc.js';

/** Which module serves each kind. */
const KIND_MODULES = {
  'express-bare': './express.js',
  'express-floor': './express.js',
  'express-peer': './express.js',
  'express-router': './express.js',
  'node-raw': './node.js',
  'node-peer': './node.js',
  'node-readbody': './node.js',
  'node-handler': './node.js',
  'fastify-bare': './fastify.js',
  'fastify-peer': './fastify.js',
  'fastify-plugin': './fastify.js',
  'hono-bare': './hono.js',
  'hono-peer': './hono.js',
  'hono-fetch': './hono.js',
  'hono-adapter': './hono.js',
  'node-handler-metrics': './metrics.js',
  'node-handler-otel-noop': './otel.js',
  'node-handler-otel-sdk': './otel.js',
};

const config = JSON.parse(process.argv[2] ?? '{}');
const [kind, variant] = String(config.kind).split(':');
if (variant !== undefined) config.variant = variant;
if (!KIND_MODULES[kind]) throw new Error(`unknown server kind ${config.kind}`);
const { kinds } = await import(KIND_MODULES[kind]);
const built = await kinds[kind](config);
let port = built.port;
if (built.server) {
  await new Promise((resolve) => built.server.listen(0, '127.0.0.1', resolve));
  port = built.server.address().port;
}
/** The inspector session of a profile under way (tools/adapters-profile.js). */
let profiler;
serveCommands({
  // A V8 CPU profile of one window of the run, start-up and warm-up left out: profileStart, then
  // profileStop writes it to `file`.
  profileStart: async () => {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
    return true;
  },
  profileStop: async ({ file }) => {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    writeFileSync(file, JSON.stringify(profile));
    return true;
  },
  poke: async () => {
    await built.poke?.();
    return true;
  },
  probe: () => ({
    cpu: process.cpuUsage(),
    memory: process.memoryUsage(),
    stats: built.receiver?.stats(),
    ...built.probe?.(),
    at: process.hrtime.bigint().toString(),
  }),
});
process.send({ ready: true, port });
