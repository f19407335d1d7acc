import express from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import type { EmulatorClient, EmulatorUser } from '../state/index.js';

/** HTTP methods the emulator routes. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The caller resolved from `Authorization: <API_KEY>`. */
export interface AuthContext {
  readonly user: EmulatorUser;
  /** The client comes from the key's user (section Authentication, point 4). */
  readonly client: EmulatorClient;
}

/** What a handler sees of a request: plain values, no node:http objects. */
export interface RouteRequest {
  readonly method: HttpMethod;
  /** Path without the query string and trailing slash. */
  readonly path: string;
  /** Values of the `:name` segments of the route pattern (URI-decoded). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /**
   * The parsed JSON body, undefined when the request had none; on a `body: 'raw'` route the
   * bytes as sent (a Buffer, empty when there were none).
   */
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
}

/** A request on a route registered with `auth: true`. */
export interface AuthedRouteRequest extends RouteRequest {
  readonly auth: AuthContext;
}

/** What a handler returns: a status (default 200) and a JSON body (default none: 204 when status unset). */
export interface RouteResult {
  readonly status?: number;
  readonly body?: unknown;
}

/** A value, or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** A route. Handlers throw an EmulatorError to answer with an error. */
export type Route =
  | {
      readonly method: HttpMethod;
      /** Pattern such as `/Messaging/MessagingClientWebHook/:id`; prefixes already applied. */
      readonly path: string;
      /**
       * `json` (the default): the body is parsed as JSON whatever its content type (a 400 when
       * it is not JSON); `raw`: the handler gets the bytes, e.g. a media upload.
       */
      readonly body?: 'json' | 'raw';
      /** Requires `Authorization: <API_KEY>` (every documented endpoint). */
      readonly auth: true;
      readonly handler: (request: AuthedRouteRequest) => Awaitable<RouteResult>;
    }
  | {
      readonly method: HttpMethod;
      readonly path: string;
      readonly body?: 'json' | 'raw';
      /** Open route: the `/_emulator` control surface. */
      readonly auth: false;
      readonly handler: (request: RouteRequest) => Awaitable<RouteResult>;
    };

/**
 * A route table: the platform operations (registered from the operations table, see
 * http/operations.ts), the control surface and extensions add to it; the Express app
 * (http/app.ts) routes by it.
 */
export interface Router {
  /** Adds a route; throws a TypeError when the same method and pattern is already registered. */
  add(route: Route): void;
  /** Registered routes, for diagnostics (`GET /_emulator` lists them). */
  routes(): readonly Pick<Route, 'method' | 'path' | 'auth'>[];
}

/** The route table with its handlers, as the Express app reads it. */
export interface RouteTable extends Router {
  /** Every route, in registration order (grows only: its length tells a change). */
  readonly list: readonly Route[];
}

/** Creates an empty route table. */
export function createRouter(): RouteTable {
  const list: Route[] = [];
  return {
    list,
    add(route) {
      if (list.some((r) => r.method === route.method && r.path === route.path))
        throw new TypeError(`Route ${route.method} ${route.path} is already registered`);
      express.Router().route(route.path); // compiles the pattern: a bad one throws here, not later
      list.push(route);
    },
    routes: () => list.map(({ method, path, auth }) => ({ method, path, auth })),
  };
}

type RouteWithAuth<A extends boolean> = Extract<Route, { readonly auth: A }>;
type AddRoute<A extends boolean> = (path: string, handler: RouteWithAuth<A>['handler']) => void;

/**
 * Express-style shorthands for {@link Router.add}: `on.get(path, handler)` adds a GET route
 * at `base + path` with the given `auth` (the control surface's routes).
 */
export function routeShorthands<A extends boolean>(
  router: Router,
  auth: A,
  base = '',
): Readonly<Record<'get' | 'post' | 'put' | 'delete', AddRoute<A>>> {
  const add =
    (method: HttpMethod): AddRoute<A> =>
    (path, handler) =>
      router.add({ method, path: `${base}${path}`, auth, handler } as RouteWithAuth<A>);
  return { get: add('GET'), post: add('POST'), put: add('PUT'), delete: add('DELETE') };
}
