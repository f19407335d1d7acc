import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import {
  BadRequestError,
  EmulatorError,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  fallbackErrorResponse,
  emulatorErrorResponse,
  type ErrorBody,
} from '../errors.js';
import { MAX_SNAPSHOT_DEPTH } from '../state/nesting.js';
import { checkBodyDepth } from './validate.js';
import type { EmulatorContext } from '../context.js';
import { authenticate } from './auth.js';
import type { AuthContext, HttpMethod, Route, RouteTable } from './router.js';

/*
 * The emulator's HTTP layer on Express: already a dependency, and its router and body parser are
 * what the receiver's Express adapter meets in users' apps too, so the emulator needs no route
 * matcher or body reader of its own. Express brings no 405: every pattern gets an `all()` that
 * notes its methods, and the last handler answers 405 with them, or 404 when none matched.
 */

/** Options of {@link createEmulatorApp}: the route table, and the context its errors and keys need. */
export type EmulatorAppOptions = Pick<EmulatorContext, 'state' | 'logger' | 'now'> & {
  readonly router: RouteTable;
  /** The DNS rebinding check (hosts.ts): true when the `Host` header names this emulator. */
  readonly hostAllowed: (host: string | undefined) => boolean;
  /** Throws (403) for a delivery of this emulator to itself (emit/self-delivery.ts). */
  readonly refuseOwnDelivery?: (headers: express.Request['headers']) => void;
  /** Largest body of a `body: 'raw'` route (a media upload), in bytes. @default 1 MiB */
  readonly rawBodyLimit?: number;
};

/** Largest accepted request body: 1 MiB. */
const MAX_BODY_BYTES = 1_048_576;

/** The emulator's Express app, its extension point and its node:http listener. */
export interface EmulatorApp {
  /** `emulator.listener`: the app, with a JSON 400 for a request target Express cannot parse. */
  readonly listener: RequestListener;
  /**
   * Extension point: middleware and routes added here (e.g. the inspector pages) run before the
   * API routes and before the JSON 404/405, with no authentication and no body parsing.
   */
  readonly extensions: express.Router;
}

interface Locals {
  /** Path without the query string and trailing slash. */
  path: string;
  query: URLSearchParams;
  auth?: AuthContext;
  allowed?: HttpMethod[];
}

const literalSegments = (path: string): number =>
  path.split('/').filter((segment) => segment !== '' && !segment.startsWith(':')).length;

/**
 * Creates the Express app serving `router`'s routes: authenticates before the body is read
 * (a 401 never depends on the body), parses JSON with a size limit, runs the handler and writes
 * its JSON. Every failure, a handler bug included, becomes a JSON error body; nothing a client
 * sends can crash the process.
 */
export function createEmulatorApp(options: EmulatorAppOptions): EmulatorApp {
  const app = express();
  app.disable('x-powered-by').disable('etag');
  const extensions = express.Router();
  // any content type (clients that omit it still send JSON); parsed by parseJson for its error text
  const readBody = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
  // a raw route's bytes (an upload) have their own limit; a 413 names whichever applied
  const readRaw = express.raw({ type: () => true, limit: options.rawBodyLimit ?? MAX_BODY_BYTES });
  const locals = (res: express.Response): Locals => res.locals as Locals;

  function build(): express.Router {
    const routes = [...options.router.list].sort((a, b) => literalSegments(b.path) - literalSegments(a.path));
    const built = express.Router({ caseSensitive: true });
    for (const route of routes) {
      const method = route.method.toLowerCase() as Lowercase<HttpMethod>;
      built[method](route.path, checkRoute(route), route.body === 'raw' ? readRaw : readBody, run(route));
    }
    for (const path of new Set(routes.map((route) => route.path))) {
      const methods = routes.filter((route) => route.path === path).map((route) => route.method);
      built.all(path, (_req, res, next) => {
        locals(res).allowed = [...new Set([...(locals(res).allowed ?? []), ...methods])];
        next();
      });
    }
    built.use((req, res) => {
      const { allowed, path } = locals(res);
      if (allowed === undefined) throw new NotFoundError(`No emulator route for ${req.method} ${path}`);
      throw new MethodNotAllowedError(`${req.method} is not allowed on ${path}`, {
        details: { allowed },
      });
    });
    return built;
  }

  /** Before the body is read: the method (Express runs GET routes for HEAD too), then the key. */
  const checkRoute =
    (route: Route): RequestHandler =>
    (req, res, next) => {
      if (req.method !== route.method) return next('route');
      if (route.auth) locals(res).auth = authenticate(options.state, req.headers.authorization);
      next();
    };

  const run =
    (route: Route): RequestHandler =>
    async (req, res) => {
      const { path, query, auth } = locals(res);
      const result = await route.handler({
        method: route.method,
        path,
        params: req.params as Record<string, string>,
        query,
        body:
          route.body === 'raw'
            ? Buffer.isBuffer(req.body)
              ? req.body
              : Buffer.alloc(0)
            : parseJson(req.body),
        headers: req.headers,
        auth: auth as AuthContext, // set by checkRoute on `auth: true` routes
      });
      const status = result.status ?? (result.body === undefined ? 204 : 200);
      if (result.body === undefined) res.status(status).end();
      else res.status(status).json(result.body);
    };

  /**
   * The error handler cannot throw: Express would hand its throw to the server, and an embedding
   * test process would die with it. Whatever fails while the answer is built or written (an
   * invalid clock, a logger that throws, details JSON cannot hold) falls back to a fixed 500 body,
   * and a socket that cannot be answered any more is destroyed.
   */
  const onError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    try {
      const path = (res.locals as Partial<Locals>).path ?? req.url;
      const known = toEmulatorError(error, req.method, path);
      if (known === undefined) options.logger.error({ err: error }, 'emulator handler failed');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const { status, body } = emulatorErrorResponse(known ?? error, options.now());
      res.status(status).type('application/json').send(JSON.stringify(body));
    } catch {
      try {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const { status, body } = fallbackErrorResponse();
        res.status(status).type('application/json').send(JSON.stringify(body));
      } catch {
        res.destroy();
      }
    }
  };

  app.use((req, res, next) => {
    // first of all: a delivery of this emulator to itself reaches no page and no route
    options.refuseOwnDelivery?.(req.headers);
    let url: URL;
    try {
      url = new URL(req.url, 'http://emulator.invalid');
    } catch (error) {
      throw new BadRequestError('Malformed request target', { cause: error, field: 'url' });
    }
    // Before anything else, the inspector included: a page of another site whose name resolves
    // to this machine (DNS rebinding) sends its own name as Host, and its Origin matches it.
    if (!options.hostAllowed(req.headers.host)) {
      throw new ForbiddenError(
        `Host ${JSON.stringify(req.headers.host ?? '')} is not a name of this emulator (localhost, 127.0.0.1, [::1] or the address it listens on); add it with the allowedHosts option or --allowed-host`,
        { field: 'host' },
      );
    }
    // A browser page of another site must not drive the emulator (a simple cross-site POST needs
    // no CORS preflight): a browser names the page's origin; API clients send none.
    const origin = req.headers.origin;
    if (origin !== undefined && req.method !== 'GET' && req.method !== 'HEAD' && !sameHost(origin, req)) {
      throw new ForbiddenError(`Cross-site request from ${origin} refused`);
    }
    // empty segments and trailing slashes do not count (Express alone allows a single trailing slash)
    const collapsed = url.pathname.replace(/\/{2,}/g, '/');
    const path = collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
    if (path !== url.pathname) req.url = `${path}${url.search}`;
    locals(res).path = path;
    locals(res).query = url.searchParams;
    next();
  });
  app.use(extensions);
  // Routes are added after the app is made (and by extensions later): the Express router is
  // rebuilt when the table grew, with literal segments first so `/list` wins over `/:id`.
  let api: { readonly router: express.Router; readonly size: number } | undefined;
  app.use((req, res, next) => {
    const size = options.router.list.length;
    if (api?.size !== size) api = { router: build(), size };
    api.router(req, res, next);
  });
  app.use(onError);
  // Express calls this back only when it cannot parse the request target (its own 404 is HTML)
  const listener = ((req: express.Request, res: express.Response) => {
    const malformed = new BadRequestError('Malformed request target', { field: 'url' });
    app(req, res, (error?: unknown) => onError(error ?? malformed, req, res, () => undefined));
  }) as RequestListener;
  return { extensions, listener };
}

function sameHost(origin: string, req: express.Request): boolean {
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** The body as the handlers see it: parsed JSON, or undefined when there was none. */
function parseJson(body: unknown): unknown {
  if (!Buffer.isBuffer(body)) return undefined;
  const text = body.toString('utf8');
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    throw new BadRequestError('Request body is not valid JSON', { cause: error, field: 'body' });
  }
  // every body, before any route (a snapshot's too): nothing kept may be too deep to copy or
  // serialise again; the routes' own schemas hold bodies to MAX_BODY_DEPTH (parseBody)
  checkBodyDepth(parsed, MAX_SNAPSHOT_DEPTH);
  return parsed;
}

/** Maps what Express and its body parser throw to the emulator's errors; undefined for a bug. */
function toEmulatorError(error: unknown, method: string, path: string): EmulatorError | undefined {
  if (error instanceof EmulatorError) return error;
  // a path parameter that is not valid percent-encoding matches no route
  if (error instanceof URIError) return new NotFoundError(`No emulator route for ${method} ${path}`);
  const { type, status, message, limit } = error as {
    type?: unknown;
    status?: unknown;
    message?: unknown;
    limit?: unknown;
  };
  if (type === 'entity.too.large') {
    const bytes = typeof limit === 'number' ? limit : MAX_BODY_BYTES;
    return new PayloadTooLargeError(`Request body exceeds ${bytes} bytes`, { details: { limit: bytes } });
  }
  // the body parser's other refusals (aborted request, unsupported content-encoding, a body its
  // inflater cannot decode: zlib's errors carry a 400 status but no type)
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new BadRequestError(String(message), { field: 'body' });
  }
  return undefined;
}

/**
 * The raw answer to a request node:http could not parse (headers over its limit, a malformed
 * request line): Node answers those itself, before any listener, with an empty body; the emulator's
 * own server answers JSON like every other error, and closes the connection.
 */
export function clientErrorAnswer(error: Error & { code?: unknown }): string {
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          'Request Header Fields Too Large',
          'Request headers (or the request line) exceed the server limit',
        ]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request did not arrive in time']
        : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({
    status: 'ERROR',
    message,
    requestId: randomUUID(),
    timestamp: new Date().toISOString(),
    code: 'BAD_REQUEST',
  } satisfies ErrorBody);
  return (
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}
