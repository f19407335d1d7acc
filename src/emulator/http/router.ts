import type { IncomingHttpHeaders } from 'node:http';
import type { EmulatorClient, EmulatorUser } from '../state.js';

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
  /** Parsed JSON body; undefined when the request had none. */
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

type Awaitable<T> = T | Promise<T>;

/** A route. Handlers throw an EmulatorError to answer with an error. */
export type Route =
  | {
      readonly method: HttpMethod;
      /** Pattern such as `/Messaging/MessagingClientWebHook/:id`; prefixes already applied. */
      readonly path: string;
      /** Requires `Authorization: <API_KEY>` (every documented endpoint). */
      readonly auth: true;
      readonly handler: (request: AuthedRouteRequest) => Awaitable<RouteResult>;
    }
  | {
      readonly method: HttpMethod;
      readonly path: string;
      /** Open route: the `/_emulator` control surface. */
      readonly auth: false;
      readonly handler: (request: RouteRequest) => Awaitable<RouteResult>;
    };

/** The outcome of {@link Router.match}. */
export type RouteMatch =
  | { readonly kind: 'found'; readonly route: Route; readonly params: Record<string, string> }
  | { readonly kind: 'method-not-allowed'; readonly allowed: readonly HttpMethod[] }
  | { readonly kind: 'not-found' };

/** A route table. */
export interface Router {
  /** Adds a route; throws a TypeError when the same method and pattern is already registered. */
  add(route: Route): void;
  /** Finds the route for a method and path. Literal segments win over `:params` at equal length. */
  match(method: string, path: string): RouteMatch;
  /** Registered routes, for diagnostics (`GET /_emulator/routes`). */
  routes(): readonly Pick<Route, 'method' | 'path' | 'auth'>[];
}

interface CompiledRoute {
  readonly route: Route;
  readonly segments: readonly string[];
  /** Count of literal segments, to prefer `/list` over `/:id`. */
  readonly literals: number;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** Creates an empty route table. */
export function createRouter(): Router {
  const compiled: CompiledRoute[] = [];
  return {
    add(route) {
      const duplicate = compiled.find((c) => c.route.method === route.method && c.route.path === route.path);
      if (duplicate !== undefined)
        throw new TypeError(`Route ${route.method} ${route.path} is already registered`);
      const segments = splitPath(route.path);
      compiled.push({ route, segments, literals: segments.filter((s) => !s.startsWith(':')).length });
    },
    match(method, path) {
      const parts = splitPath(path);
      const candidates: { route: Route; params: Record<string, string>; literals: number }[] = [];
      for (const { route, segments, literals } of compiled) {
        const params = matchSegments(segments, parts);
        if (params !== undefined) candidates.push({ route, params, literals });
      }
      if (candidates.length === 0) return { kind: 'not-found' };
      candidates.sort((a, b) => b.literals - a.literals);
      const best = candidates.find((c) => c.route.method === method);
      if (best === undefined) {
        return { kind: 'method-not-allowed', allowed: [...new Set(candidates.map((c) => c.route.method))] };
      }
      return { kind: 'found', route: best.route, params: best.params };
    },
    routes() {
      return compiled.map(({ route }) => ({ method: route.method, path: route.path, auth: route.auth }));
    },
  };
}

function matchSegments(
  pattern: readonly string[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i] ?? '';
    const actual = parts[i] ?? '';
    if (expected.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
      params[expected.slice(1)] = decoded;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

/** Joins a prefix and a path: `joinPath('/api', '/Messaging/x')` is `/api/Messaging/x`. */
export function joinPath(prefix: string, path: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return `${trimmed}${path.startsWith('/') ? path : `/${path}`}`;
}
