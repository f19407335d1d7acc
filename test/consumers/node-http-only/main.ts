// node:http only: no Express types installed (no @types/express), skipLibCheck false.
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from 'messaging-webhooks';
import { fixtures } from 'messaging-webhooks/testing';

let ran = 0;
const handler = createNodeHandler({
  basePath: '/webhooks',
  onIncoming: async () => {
    ran += 1;
  },
});
const server = createServer(handler).listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;

const answer = await fetch(`http://127.0.0.1:${port}/webhooks/incoming`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(fixtures.incoming.TEXT),
});
await handler.idle();
server.close();
await handler.close();

if (answer.status !== 200 || ran !== 1) {
  console.error('node-http-only: FAIL', { status: answer.status, ran });
  process.exit(1);
}
console.log('node-http-only: ok (200, callback ran)');
