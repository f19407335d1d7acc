// One server under test, in its own process (started by the runner's startServer, pinned to the
// server CPU). argv[2] is a JSON config `{ kind, ...options }`; `kind` may carry a variant after
// a colon (`fastify-plugin:no-dedupe`, servers/options.js). The kind's module builds it; this
// file makes it listen on 127.0.0.1 (port 0), reports `{ ready, port }`, then answers `probe`
// (CPU time, memory, the receiver's stats) until stopped.
//
// A kind module exports `kinds`: name → (config) → { server } (an http.Server, not yet listening)
// or { port } (already listening), plus `receiver` (anything with stats()) and `probe` (extra
// fields for the probe) when it has them.
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
serveCommands({
  probe: () => ({
    cpu: process.cpuUsage(),
    memory: process.memoryUsage(),
    stats: built.receiver?.stats(),
    ...built.probe?.(),
    at: process.hrtime.bigint().toString(),
  }),
});
process.send({ ready: true, port });
