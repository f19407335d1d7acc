import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { countClientErrors, createNodeHandler, type NodeWebhookHandler } from '../../src/receiver/index.js';

/** Writes raw bytes to the server and resolves with everything it answers before closing. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (data: Buffer) => (answer += data.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

async function listening(
  maxHeaderSize?: number,
): Promise<{ handler: NodeWebhookHandler; server: Server; port: number }> {
  const handler = createNodeHandler({ onChatbot: () => undefined });
  const server: Server = createServer(maxHeaderSize === undefined ? {} : { maxHeaderSize }, handler);
  countClientErrors(server, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { handler, server, port: (server.address() as AddressInfo).port };
}

describe('countClientErrors: Node-level refusals counted in stats()', () => {
  it.each([
    ['malformed HTTP', 'NOT HTTP AT ALL\r\n\r\n', 400, 'malformed_request', 'invalid'],
    [
      'headers over maxHeaderSize',
      `POST /chatbot HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(4000)}\r\n\r\n`,
      431,
      'headers_too_large',
      'rejected',
    ],
  ] as const)(
    'answers %s with the JSON error body and counts it',
    async (_name, bytes, status, code, counter) => {
      const { handler, server, port } = await listening(1024);
      try {
        const answer = await rawExchange(port, bytes);
        expect(answer.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code } });
        expect(handler.stats().unknown).toMatchObject({ received: 1, [counter]: 1 });
        const total = handler.stats().total;
        expect(total.received).toBe(total.acked + total.invalid + total.rejected);
      } finally {
        server.close();
      }
    },
  );
});
