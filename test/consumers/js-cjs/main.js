// Plain CommonJS: every subpath by require() (Node >= 20.19), the Express router on one fixture.
// Under --no-experimental-require-module (how Node < 20.19 behaves) it checks instead that each
// require() fails with the message that says the package is ESM and how to load it.
const express = require('express');
const { once } = require('node:events');

const SUBPATHS = {
  'messaging-webhooks': 'createWebhookRouter',
  'messaging-webhooks/schemas': 'parseWebhook',
  'messaging-webhooks/emulator': 'createEmulator',
  'messaging-webhooks/testing': 'replay',
  'messaging-webhooks/client': 'createPlatformClient',
  'messaging-webhooks/redis': 'createWorker',
  'messaging-webhooks/fastify': 'webhooksPlugin',
};

function expectEsmErrors() {
  const wrong = [];
  for (const specifier of Object.keys(SUBPATHS)) {
    try {
      require(specifier);
      wrong.push(`${specifier}: loaded`);
    } catch (error) {
      const text = String(error && error.message);
      if (!text.includes(`${specifier} is an ES module`) || !text.includes(`import('${specifier}')`)) {
        wrong.push(`${specifier}: ${text}`);
      }
    }
  }
  if (wrong.length > 0) {
    console.error('js-cjs (no require(esm)): FAIL', wrong);
    process.exit(1);
  }
  console.log('js-cjs (no require(esm)): ok (7 subpaths: ERR_REQUIRE_ESM explained)');
}

async function main() {
  const missing = Object.entries(SUBPATHS)
    .filter(([specifier, name]) => typeof require(specifier)[name] !== 'function')
    .map(([specifier]) => specifier);
  const { createWebhookRouter } = require('messaging-webhooks');
  const { fixtures } = require('messaging-webhooks/testing');

  const received = [];
  const router = createWebhookRouter({ onIncoming: async (message) => void received.push(message) });
  const app = express();
  app.use('/webhooks', router);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const answer = await fetch(`http://127.0.0.1:${server.address().port}/webhooks/incoming`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixtures.incoming.TEXT),
  });
  await router.idle();
  server.close();
  await router.close();

  if (answer.status !== 200 || received.length !== 1 || missing.length > 0) {
    console.error('js-cjs: FAIL', { status: answer.status, received: received.length, missing });
    process.exit(1);
  }
  console.log('js-cjs: ok (7 subpaths required; 200, callback ran)');
}

if (process.execArgv.includes('--no-experimental-require-module')) expectEsmErrors();
else
  main().catch((error) => {
    console.error('js-cjs: FAIL', error);
    process.exit(1);
  });
