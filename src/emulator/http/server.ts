import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { BadRequestError, EmulatorError, NotFoundError, toErrorResponse } from '../errors.js';
import type { EmulatorState } from '../state.js';
import { authenticate } from './auth.js';
import type { HttpMethod, RouteRequest, RouteResult, Router } from './router.js';

/** Options of {@link createRequestListener}. */
export interface RequestListenerOptions {
  readonly router: Router;
  readonly state: EmulatorState;
  readonly logger: Logger;
  /** The emulator clock as a Date (error timestamps). */
  readonly now: () => Date;
  /** Largest accepted request body. @default 1_048_576 */
  readonly maxBodyBytes?: number;
}

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The node:http adapter: reads and parses the JSON body, matches the route, authenticates,
 * runs the handler and writes a JSON response. Every failure, including a handler bug, becomes
 * a JSON error body; nothing a client sends can crash the process.
 */
export function createRequestListener(options: RequestListenerOptions): RequestListener {
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  return function emulatorRequestListener(req, res) {
    handle(req, res).catch((error: unknown) => {
      options.logger.error({ err: error }, 'emulator request failed');
      if (!res.headersSent) send(res, toErrorResponse(error, options.now()));
      else res.destroy();
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let result: RouteResult;
    try {
      result = await route(req);
    } catch (error) {
      if (!(error instanceof EmulatorError)) options.logger.error({ err: error }, 'emulator handler failed');
      const response = toErrorResponse(error, options.now());
      send(res, response);
      return;
    }
    send(res, { status: result.status ?? (result.body === undefined ? 204 : 200), body: result.body });
  }

  async function route(req: IncomingMessage): Promise<RouteResult> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid');
    } catch (error) {
      req.resume();
      throw new BadRequestError('Malformed request target', { cause: error, field: 'url' });
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const found = options.router.match(method, path);
    if (found.kind === 'not-found') {
      req.resume();
      throw new NotFoundError(`No emulator route for ${method} ${path}`);
    }
    if (found.kind === 'method-not-allowed' || !isMethod(method)) {
      req.resume();
      const allowed = found.kind === 'method-not-allowed' ? found.allowed : [];
      throw new EmulatorError('METHOD_NOT_ALLOWED', 405, `${method} is not allowed on ${path}`, {
        details: { allowed },
      });
    }
    const authorization = req.headers.authorization;
    // authenticate before reading the body: a 401 never depends on the body
    const auth = found.route.auth ? authenticate(options.state, authorization) : undefined;
    const body = await readJsonBody(req, maxBodyBytes);
    const request: RouteRequest = {
      method,
      path,
      params: found.params,
      query: url.searchParams,
      body,
      headers: req.headers,
    };
    if (found.route.auth) {
      if (auth === undefined) throw new EmulatorError('INTERNAL', 500, 'Authentication context missing');
      return found.route.handler({ ...request, auth });
    }
    return found.route.handler(request);
  }
}

function isMethod(method: string): method is HttpMethod {
  return (METHODS as readonly string[]).includes(method);
}

async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) {
      throw new EmulatorError('PAYLOAD_TOO_LARGE', 413, `Request body exceeds ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BadRequestError('Request body is not valid JSON', { cause: error, field: 'body' });
  }
}

function send(res: ServerResponse, response: { status: number; body?: unknown }): void {
  if (response.body === undefined) {
    res.writeHead(response.status).end();
    return;
  }
  const text = JSON.stringify(response.body);
  res
    .writeHead(response.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}
