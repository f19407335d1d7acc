// Scenario 15: what a Cloudflare Worker receiver costs a user in script size. The minimal receiver
// below (the fetch handler with two callbacks, as docs/cloudflare.md writes it) is bundled from
// dist/ the way wrangler bundles a Worker (esbuild: ESM, the workerd/worker/browser conditions,
// node:* and cloudflare:* left to the runtime), minified, then gzipped, as Cloudflare measures a
// script against its size limits. The same for the durable recipe (Queues dispatcher, consumer and
// Durable Object dedupe store of messaging-webhooks/cloudflare). One build each, in this process:
// it takes well under a second, and the figures do not depend on the machine's load.
//
//   minimal Worker receiver, gzipped                                      target ≤ 64 KiB
//
// The largest inputs of the minimal bundle are listed, by minified bytes, so that a module reached
// by mistake (an emulator schema, a logger the runtime has no use for) shows by name.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { int, table } from '../lib/table.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Ceiling of the minimal receiver, gzipped: its size after the cut, with room for growth. */
const GZIP_CEILING = 64 * 1024;

const MINIMAL = `
import { createFetchHandler } from 'messaging-webhooks';
const handler = createFetchHandler({
  token: 'secret',
  onIncoming: async (message, ctx) => ctx.logger.info('incoming'),
  onChatbot: async (event, ctx) => ctx.logger.info('chatbot'),
});
export default { fetch: (request, env, ctx) => handler(request, ctx) };
`;

const DURABLE = `
import { createFetchHandler } from 'messaging-webhooks';
import {
  createDurableObjectDedupeStore,
  createQueueConsumer,
  createQueuesDispatcher,
} from 'messaging-webhooks/cloudflare';
export { WebhookDedupeObject } from 'messaging-webhooks/cloudflare';
const handlers = { onIncoming: async () => {}, onChatbot: async () => {} };
let handler;
export default {
  fetch(request, env, ctx) {
    handler ??= createFetchHandler({
      token: env.WEBHOOK_TOKEN,
      dispatcher: createQueuesDispatcher({ queue: env.WEBHOOKS }),
      dedupe: { store: createDurableObjectDedupeStore({ namespace: env.DEDUPE }) },
    });
    return handler(request, ctx);
  },
  queue: createQueueConsumer({ handlers }),
};
`;

/** The package as a Worker bundle reaches it: its exports map resolved to dist/. */
const ALIAS = {
  'messaging-webhooks/cloudflare': `${ROOT}dist/cloudflare/index.js`,
  'messaging-webhooks': `${ROOT}dist/index.js`,
};

async function measure(source) {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['node:*', 'cloudflare:*'],
    alias: ALIAS,
    minify: true,
    metafile: true,
    logLevel: 'error',
  });
  const bytes = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  return { minified: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length, inputs };
}

/** Minified bytes by package (node_modules) or by folder of dist/. */
function byOrigin(inputs) {
  const sizes = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const inPackage = path.split('node_modules/').at(-1);
    const name = path.includes('node_modules/')
      ? inPackage
          .split('/')
          .slice(0, inPackage.startsWith('@') ? 2 : 1)
          .join('/')
      : path.replace(/^.*dist\//, 'dist/').replace(/^(dist\/[^/]+)\/.*$/, '$1/');
    sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
  }
  return [...sizes].sort((a, b) => b[1] - a[1]);
}

export async function run(bench) {
  const { target, log } = bench;
  const minimal = await measure(MINIMAL);
  const durable = await measure(DURABLE);
  const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
  log(
    table(
      ['Worker', 'minified', 'gzipped'],
      [
        ['minimal receiver (fetch handler)', kib(minimal.minified), kib(minimal.gzipped)],
        ['durable recipe (Queues + Durable Object)', kib(durable.minified), kib(durable.gzipped)],
      ],
    ),
  );
  const origins = byOrigin(minimal.inputs);
  log('\nlargest inputs of the minimal receiver (minified bytes):');
  log(
    table(
      ['input', 'bytes'],
      origins.slice(0, 12).map(([name, bytes]) => [name, int(bytes)]),
    ),
  );
  target(
    'minimal Worker receiver, gzipped',
    minimal.gzipped / 1024,
    `≤ ${GZIP_CEILING / 1024} KiB`,
    minimal.gzipped <= GZIP_CEILING,
    `${kib(minimal.minified)} minified; durable recipe ${kib(durable.gzipped)} gzipped`,
  );
  return {
    minimal: { minified: minimal.minified, gzipped: minimal.gzipped },
    durable: { minified: durable.minified, gzipped: durable.gzipped },
    origins: Object.fromEntries(origins),
  };
}
