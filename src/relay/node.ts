import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A web-standard request handler, as `createRelay` returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Node's request as a web `Request` (its body streamed, not read first). */
function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headersDistinct)) {
    for (const item of value ?? []) headers.append(name, item);
  }
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  const body =
    req.method === 'GET' || req.method === 'HEAD'
      ? null
      : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    body,
    // a streamed request body (undici requires saying so)
    ...(body === null ? {} : { duplex: 'half' }),
  });
}

/** Writes a web `Response` to Node's response, streaming its body (an event stream stays open). */
async function send(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  res.flushHeaders();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

/**
 * A node:http listener over a web-standard handler (the relay's): what `messaging-webhooks relay`
 * serves. A failure inside the handler is answered 500 without details.
 */
function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return function relayNodeListener(req, res) {
    handler(toRequest(req))
      .then((response) => send(response, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(res.headersSent ? undefined : '{"status":"ERROR","code":"internal_error"}');
      });
  };
}

/** A node:http server over the handler, not yet listening. */
export function createRelayServer(handler: FetchHandler): Server {
  return createServer(toNodeListener(handler));
}
