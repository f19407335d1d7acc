// What a user's Worker bundle carries. A minimal receiver, bundled as wrangler bundles it, must
// reach only the code the receiver runs: zod through its tree-shakable namespace (no locale but
// English, none of the JSON Schema importer), the webhook payload schemas and not the platform
// API's resources, and no logger when none is given. `npm run bench` scenario 15 reports the sizes.
import { describe, expect, it } from '@jest/globals';
import { bundleWorker, inputsOf } from './workerd.js';

const MINIMAL = `
import { createFetchHandler } from 'messaging-webhooks';
const handler = createFetchHandler({ token: 'secret', onIncoming: async () => {} });
export default { fetch: (request, env, ctx) => handler(request, ctx) };
`;

describe('a minimal Worker receiver bundle', () => {
  it('carries no code the receiver does not run', async () => {
    const inputs = inputsOf(await bundleWorker(MINIMAL, { minify: true }));
    expect(inputs.some((path) => path.endsWith('src/receiver/fetch.ts'))).toBe(true);
    expect(inputs.some((path) => path.endsWith('src/schemas/incoming.ts'))).toBe(true);
    const unused = inputs.filter((path) =>
      [
        /node_modules\/(pino|@pinojs|sonic-boom|thread-stream)\//,
        /node_modules\/zod\/v4\/locales\/(?!en\.js)/,
        /node_modules\/zod\/v4\/classic\/from-json-schema/,
        /src\/schemas\/(resources|webhook-config|trigger-contract)\.ts$/,
        /src\/(emulator|client|openapi|testing|cli|redis|cloudflare)\//,
      ].some((pattern) => pattern.test(path)),
    );
    expect(unused).toEqual([]);
  });
});
