/**
 * Import rules of src/, checked by `npm run lint` (dependency-cruiser). Type-only imports count:
 * a type in the wrong place is how a circle starts.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle means a type or helper lives in the wrong module: move it to the module both need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'root-loads-no-optional-peer',
      comment:
        'The root entry must load without the optional peers (bullmq, ioredis, fastify, hono, prom-client, OpenTelemetry).',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: {
        reachable: true,
        path: 'node_modules/(bullmq|ioredis|fastify|fastify-plugin|hono|@hono|prom-client|@opentelemetry)/',
      },
    },
    {
      name: 'root-loads-no-cloudflare-entry',
      comment:
        'The root entry must not load messaging-webhooks/cloudflare: it is for Workers only, and a receiver on Node would carry it for nothing.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { reachable: true, path: '^src/cloudflare/' },
    },
    {
      name: 'root-loads-no-client-or-emulator',
      comment:
        'A production receiver (the root entry) loads neither the typed client nor the emulator: they are subpath exports of their own.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { reachable: true, path: '^src/(client|emulator)/' },
    },
    {
      name: 'client-loads-no-emulator',
      comment:
        'The typed client runs against the platform: it reads the operations table (src/contract), never the emulator that serves it.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { reachable: true, path: '^src/emulator/' },
    },
    {
      name: 'contract-is-a-leaf',
      comment:
        'The operations table is read by the emulator, the client and the OpenAPI generator; it reads only the schemas, never one of its readers.',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/(?!contract/|schemas/)' },
    },
    {
      name: 'no-adapter-imports-adapter',
      comment:
        'Adapters are peers over one seam (receiver/core.ts, receiver/controls.ts): what two adapters share lives there, not in either adapter.',
      severity: 'error',
      from: { path: '^src/receiver/(express|node|fetch|fastify|hono|lambda)\\.ts$' },
      to: { path: '^src/receiver/(express|node|fetch|fastify|hono|lambda)\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules/.+/node_modules)/' },
  },
};
