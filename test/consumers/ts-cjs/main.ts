// TypeScript, CommonJS ("type": "commonjs", module nodenext — what `npm init` + `tsc --init` give):
// the imports compile to require(), which loads the ESM package on Node >= 20.19.
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createWebhookRouter, type IncomingMessage } from 'messaging-webhooks';
import { parseWebhook } from 'messaging-webhooks/schemas';
import { createEmulator } from 'messaging-webhooks/emulator';
import { fixtures } from 'messaging-webhooks/testing';
import { createPlatformClient } from 'messaging-webhooks/client';
import { createWorker } from 'messaging-webhooks/redis';
import { Hono } from 'hono';
import { createHonoWebhooks } from 'messaging-webhooks/hono';
import { createLambdaHandler, type LambdaHttpResult } from 'messaging-webhooks/lambda';

async function main(): Promise<void> {
  const received: IncomingMessage[] = [];
  const router = createWebhookRouter({
    onIncoming: async (message) => {
      received.push(message);
    },
  });
  const app = express();
  app.use('/webhooks', router);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const answer = await fetch(`http://127.0.0.1:${port}/webhooks/incoming`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixtures.incoming.TEXT),
  });
  await router.idle();
  server.close();
  await router.close();

  // The Hono adapter (Hono's app.request, its fetch path) and the Lambda handler (an ALB event),
  // both through require().
  const hooks = createHonoWebhooks({ onIncoming: async (message) => void received.push(message) });
  const viaHono = await new Hono().route('/webhooks', hooks).request('/webhooks/incoming', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...fixtures.incoming.TEXT, gstId: 'via-hono' }),
  });
  const handler = createLambdaHandler({
    basePath: '/webhooks',
    onIncoming: async (message) => void received.push(message),
  });
  const viaLambda: LambdaHttpResult = await handler({
    httpMethod: 'POST',
    path: '/webhooks/incoming',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...fixtures.incoming.TEXT, gstId: 'via-lambda' }),
    isBase64Encoded: false,
    requestContext: {
      elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:region:123456789012:targetgroup/t/1' },
    },
  });
  await hooks.idle();

  const subpaths = [parseWebhook, createEmulator, createPlatformClient, createWorker].map((f) => typeof f);
  const statuses = [answer.status, viaHono.status, viaLambda.statusCode];
  if (
    statuses.some((status) => status !== 200) ||
    viaLambda.statusDescription !== '200 OK' ||
    received.length !== 3 ||
    subpaths.some((t) => t !== 'function')
  ) {
    console.error('ts-cjs: FAIL', { statuses, received: received.length, subpaths });
    process.exit(1);
  }
  console.log(
    `ts-cjs: ok (200 from Express, Hono and Lambda, callbacks ran for ${received[0]?.messageContentType})`,
  );
}

main().catch((error: unknown) => {
  console.error('ts-cjs: FAIL', error);
  process.exit(1);
});
