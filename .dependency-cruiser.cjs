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
