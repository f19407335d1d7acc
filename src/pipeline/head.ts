// Performance imported, not the global: Node 20's global `performance` is a getter.
import { performance } from 'node:perf_hooks';
import {
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  ShuttingDownError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  type WebhookError,
} from '../errors.js';
import type { Answers } from './answers.js';
import { createTokenCheck, type TokenCheck } from './auth.js';
import { nextRequestId } from '../util/request-id.js';
import { tokenHeaderOf } from '../util/token-header.js';
import { tokensOf } from './options.js';
import { parseRoute } from './route.js';
import type { PipelineState } from './state.js';
import type { StatsBucket } from './stats.js';
import type { AcceptedHead, RequestHead } from './types.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * `Number(value)` of a Content-Length header: its digits read here when it has nothing else (what
 * Node's HTTP parser lets through), since `Number()` of a string V8 has not yet seen as a number
 * is a call into the runtime on every request; anything else (no header, signs, spaces, a hand-made
 * fetch Request's odd value) goes to `Number()`, so the result is the same for every input.
 */
function lengthOf(value: string | undefined): number {
  if (value === undefined || value.length === 0 || value.length > 15) return Number(value);
  let length = 0;
  for (let i = 0; i < value.length; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number(value);
    length = length * 10 + digit;
  }
  return length;
}

/**
 * The checks of a request before its body is read, in order: path (404), method (405), token
 * (401), closing (503), content type (415), declared length (413). The request is counted as
 * received here, in its type's bucket (`unknown` for the auto-detecting endpoint).
 */
export function createHeadCheck(
  state: PipelineState,
  { refuse }: Answers,
  bodyLimit: number,
): (request: RequestHead) => AcceptedHead | WebhookError {
  const { options, stats, probe } = state;
  const tokens = tokensOf(options);
  const checkToken: TokenCheck | undefined = tokens.length > 0 ? createTokenCheck(tokens) : undefined;
  const tokenHeader = tokenHeaderOf(options);
  const tokenQueryParam = options.tokenQueryParam ?? 'token';

  return function head(request: RequestHead): AcceptedHead | WebhookError {
    const span = probe.tracer?.requested(request);
    const queryStart = request.url.indexOf('?');
    const pathname = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
    const route = parseRoute(pathname, checkToken !== undefined);
    const bucket: StatsBucket = route?.type ?? 'unknown';
    stats.inc(bucket, 'received');
    // The path is not echoed: it may hold a token segment.
    if (route === undefined) return refuse(bucket, new NotFoundError(), undefined, span);
    if (request.method !== 'POST')
      return refuse(bucket, new MethodNotAllowedError(request.method), undefined, span);
    if (checkToken) {
      // Accepted when any presented token is right: an empty or stale header (a proxy's, a
      // forgotten default) must not hide the right token in the query or the path.
      const query = queryStart === -1 ? undefined : new URLSearchParams(request.url.slice(queryStart + 1));
      if (
        !checkToken(request.header(tokenHeader)) &&
        !checkToken(query?.get(tokenQueryParam) ?? undefined) &&
        !checkToken(route.pathToken)
      ) {
        return refuse(bucket, new UnauthorizedError(), undefined, span);
      }
    }
    if (state.closing) return refuse(bucket, new ShuttingDownError(state.retryAfter), undefined, span);
    const contentType = request.header('content-type');
    // The exact common value first: a string comparison, not a regular expression.
    if (contentType !== 'application/json' && (contentType === undefined || !JSON_TYPE.test(contentType))) {
      return refuse(bucket, new UnsupportedMediaTypeError(contentType), undefined, span);
    }
    const length = lengthOf(request.header('content-length'));
    if (length > bodyLimit) return refuse(bucket, new PayloadTooLargeError(bodyLimit), undefined, span);
    const given = request.header('x-request-id');
    const requestId =
      given !== undefined && given.length > 0 && given.length <= 128 ? given : nextRequestId();
    return {
      type: route.type,
      requestId,
      receivedAt: Date.now(),
      declaredLength: length,
      startedAt: probe.observer === undefined ? undefined : performance.now(),
      span,
    };
  };
}
