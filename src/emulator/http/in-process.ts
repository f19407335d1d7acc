import { createServer, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { Client } from 'undici';

/*
 * The emulator's HTTP API without a port: each request goes over an in-memory connection into
 * a node:http server that never listens (node documents emitting `connection` with any Duplex),
 * driven by an undici client whose connector hands it that connection. The bytes, the parser,
 * the Express app and every answer are those of the listening emulator; only the socket is not
 * a network one.
 */

/** A `fetch` served by the emulator in process. The URL's origin is ignored; its path and query are used. */
export type EmulatorFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The in-process `fetch` and what ends it. */
export interface InProcessFetch {
  readonly fetch: EmulatorFetch;
  /** Closes the in-memory connections (a later call opens new ones). */
  close(): Promise<void>;
}

/** The statuses and method whose answers carry no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Two Duplex streams, each writing into the other, standing for the two ends of a TCP connection. */
function connectionPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (peer: () => Duplex): Duplex => {
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        peer().push(chunk);
        callback();
      },
      final(callback) {
        peer().push(null);
        callback();
      },
    });
    // what node:http and undici call on a net.Socket: no timers or TCP options apply in memory
    const self = (): Duplex => stream;
    Object.assign(stream, {
      setTimeout: self,
      setNoDelay: self,
      setKeepAlive: self,
      ref: self,
      unref: self,
      remoteAddress: '127.0.0.1',
      remotePort: 0,
      remoteFamily: 'IPv4',
      localAddress: '127.0.0.1',
      localPort: 0,
      encrypted: false,
    });
    stream.on('close', () => peer().destroy());
    return stream;
  };
  ends.push(
    end(() => ends[1] as Duplex),
    end(() => ends[0] as Duplex),
  );
  return [ends[0] as Duplex, ends[1] as Duplex];
}

/** Serves `listener` through a `fetch`, with no port. */
export function createInProcessFetch(listener: RequestListener): InProcessFetch {
  const server = createServer(listener);
  let client: Client | undefined;
  // Host: localhost, a name the emulator always answers to: no DNS rebinding is possible in process
  const connect = (): Client =>
    (client ??= new Client('http://localhost', {
      connect(_options, callback) {
        const [mine, theirs] = connectionPair();
        server.emit('connection', theirs);
        // undici reads and writes the Duplex as it would a socket; the socket-only calls are stubs
        queueMicrotask(() => callback(null, mine as unknown as Socket));
      },
    }));

  async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const { pathname, search } = new URL(request.url);
    const headers: string[] = [];
    request.headers.forEach((value, name) => {
      if (name !== 'host') headers.push(name, value);
    });
    const body = request.body === null ? null : Buffer.from(await request.arrayBuffer());
    const answer = await connect().request({
      method: request.method,
      path: `${pathname}${search}`,
      headers,
      body,
      signal: request.signal,
    });
    const bytes = await answer.body.arrayBuffer();
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        responseHeaders.append(name, item);
      }
    }
    const empty = NULL_BODY_STATUSES.has(answer.statusCode) || request.method === 'HEAD';
    return new Response(empty ? null : bytes, { status: answer.statusCode, headers: responseHeaders });
  }

  return {
    fetch,
    async close() {
      const open = client;
      client = undefined;
      await open?.close();
    },
  };
}
