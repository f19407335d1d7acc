// Cloudflare Workers, from the packed tarball: each Worker of this folder is bundled with esbuild
// as wrangler bundles one (ESM; the workerd, worker and browser conditions; node:* left to
// nodejs_compat) and run in workerd through miniflare. The fetch handler answers 200, 405 and 401
// and runs its callbacks through the runtime's waitUntil (quick.js); the durable recipe hands
// events to a Queue and dedupes on a Durable Object (durable.js). Exits non-zero on any mismatch.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { Log, LogLevel, Miniflare } from 'miniflare';
import { buildIncoming } from 'messaging-webhooks/testing';

const failures = [];
const check = (what, ok, got) => {
  if (!ok) failures.push(`${what}: got ${JSON.stringify(got)}`);
};

async function bundle(entry) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['node:*', 'cloudflare:*'],
    minify: true,
    logLevel: 'warning',
  });
  const code = result.outputFiles[0].text;
  console.log(`${entry}: ${code.length} B minified, ${gzipSync(code).length} B gzipped`);
  return code;
}

function start(script, options = {}) {
  return new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2026-04-01',
    compatibilityFlags: ['nodejs_compat'],
    // A placeholder Request.cf: miniflare would otherwise download one from Cloudflare.
    cf: false,
    log: new Log(LogLevel.WARN),
    ...options,
  });
}

async function until(what, check) {
  for (let tries = 0; tries < 400; tries += 1) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  failures.push(`timed out waiting for ${what}`);
  return false;
}

const post = (mf, path, payload, headers = {}) =>
  mf.dispatchFetch(`http://worker${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });

// The fetch handler, callbacks kept alive by waitUntil.
{
  const mf = start(await bundle('quick.js'));
  try {
    const ok = await post(mf, '/webhooks/incoming?token=secret', buildIncoming({ text: 'first' }));
    check('valid event', ok.status === 200, ok.status);
    const wrongMethod = await mf.dispatchFetch('http://worker/webhooks/incoming?token=secret');
    check('GET answered 405', wrongMethod.status === 405, wrongMethod.status);
    const noToken = await post(mf, '/webhooks/incoming?token=wrong', buildIncoming({ text: 'refused' }));
    check('wrong token answered 401', noToken.status === 401, noToken.status);
    const body = await noToken.json();
    check('401 body names the problem', typeof body?.error?.code === 'string', body);
    let seen;
    await until('the callback', async () => {
      seen = await (await mf.dispatchFetch('http://worker/seen')).json();
      return seen.seen.length === 1;
    });
    check('callback ran once, for the accepted event', JSON.stringify(seen?.seen) === '["first"]', seen);
    check('waitUntil given the callbacks', seen?.waitedOn === 1, seen);
  } finally {
    await mf.dispose();
  }
}

// The durable recipe: Queues and a Durable Object.
{
  const mf = start(await bundle('durable.js'), {
    bindings: { WEBHOOK_TOKEN: 'secret' },
    kvNamespaces: ['HANDLED'],
    queueProducers: { WEBHOOKS: 'webhooks' },
    queueConsumers: { webhooks: { maxBatchTimeout: 0 } },
    durableObjects: { DEDUPE: 'WebhookDedupeObject' },
  });
  try {
    const token = { 'x-webhook-token': 'secret' };
    const once = buildIncoming({ text: 'once' });
    const first = await post(mf, '/webhooks/incoming', once, token);
    check('queued event answered 200', first.status === 200, first.status);
    const again = await post(mf, '/webhooks/incoming', once, token);
    check(
      'redelivery answered as a duplicate',
      (await again.text()).includes('"duplicate":true'),
      again.status,
    );
    const other = await post(mf, '/webhooks/incoming', buildIncoming({ text: 'other' }), token);
    check('second event answered 200', other.status === 200, other.status);
    const kv = await mf.getKVNamespace('HANDLED');
    let keys = [];
    await until('the queue handler', async () => {
      keys = (await kv.list()).keys.map((key) => key.name);
      return keys.length >= 2;
    });
    check('each event handled once', keys.length === 2, keys);
    check('the duplicate not run', keys.filter((key) => key.startsWith(`${once.gstId}:`)).length === 1, keys);
  } finally {
    await mf.dispose();
  }
}

if (failures.length > 0) {
  console.error(`cloudflare-worker: ${failures.length} failure(s)\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('cloudflare-worker: ok');
