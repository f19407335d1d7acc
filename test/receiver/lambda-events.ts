/**
 * AWS Lambda events as the integrations send them, shaped after the examples of AWS's
 * documentation (API Gateway "Working with AWS Lambda proxy integrations for HTTP APIs" (payload
 * format 2.0) and "...for REST APIs" (1.0), Lambda "Invoking Lambda function URLs", Elastic Load
 * Balancing "Lambda functions as targets"), built from a table request: every field those
 * examples carry, the request's method, path, query, headers and body in theirs.
 *
 * What each integration does with a request, as documented: an HTTP API and a function URL
 * lower-case header names, join repeated values with commas and hand cookies apart; a REST API
 * keeps the names as sent, puts the last value in `headers` and every value in
 * `multiValueHeaders`, decodes the query; an ALB passes the query as sent and gives either
 * `headers` or (multi-value headers on) `multiValueHeaders`. A body that is not UTF-8 text, or
 * that carries a Content-Encoding, arrives base64-encoded; a REST API whose binary media types
 * include `*\/*` base64-encodes every body.
 */
import { isUtf8 } from 'node:buffer';
import type {
  ALBEvent,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  LambdaFunctionURLEvent,
} from 'aws-lambda';
import type { LambdaHttpResult } from '../../src/receiver/lambda.js';
import type { Answer, Sent } from './harness.js';

/** The body as the integration hands it: text when it can, base64 otherwise (or always). */
function bodyOf(sent: Sent, alwaysBase64 = false): { body: string | null; isBase64Encoded: boolean } {
  if (sent.body === undefined) return { body: null, isBase64Encoded: false };
  const bytes = typeof sent.body === 'string' ? Buffer.from(sent.body) : sent.body;
  const encoded = Object.keys(sent.headers ?? {}).some((name) => name.toLowerCase() === 'content-encoding');
  return alwaysBase64 || encoded || !isUtf8(bytes)
    ? { body: bytes.toString('base64'), isBase64Encoded: true }
    : { body: bytes.toString('utf8'), isBase64Encoded: false };
}

/** The headers a client sends with the table's: host, agent, forwarding, and Content-Length. */
function wireHeaders(sent: Sent, host: string): [string, string][] {
  const headers: [string, string][] = [
    ['Host', host],
    ['User-Agent', 'platform-webhooks/1.0'],
    ['X-Forwarded-For', '192.0.2.10'],
    ['X-Forwarded-Port', '443'],
    ['X-Forwarded-Proto', 'https'],
    ['Accept', '*/*'],
  ];
  if (sent.body !== undefined)
    headers.push([
      'Content-Length',
      String(typeof sent.body === 'string' ? Buffer.byteLength(sent.body) : sent.body.length),
    ]);
  for (const [name, value] of Object.entries(sent.headers ?? {})) headers.push([name, value]);
  return headers;
}

const splitTarget = (path: string): { path: string; query: string } => {
  const at = path.indexOf('?');
  return at === -1 ? { path, query: '' } : { path: path.slice(0, at), query: path.slice(at + 1) };
};

const COOKIES = ['session=3f1c9a', 'theme=dark'];

/** `{ name: value }` of the pairs, repeated names joined with commas (HTTP API, function URL). */
function joined(pairs: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]},${value}`;
  }
  return out;
}

/** Query pairs split from a query string; `decode` as a REST API does. */
function queryPairs(query: string, decode: boolean): [string, string][] {
  if (query === '') return [];
  return query.split('&').map((part) => {
    const at = part.indexOf('=');
    const [name, value] = at === -1 ? [part, ''] : [part.slice(0, at), part.slice(at + 1)];
    return decode ? [decodeURIComponent(name), decodeURIComponent(value.replace(/\+/g, ' '))] : [name, value];
  });
}

function single(pairs: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) out[name] = value; // the last value wins, as REST's `headers`
  return out;
}

function multi(pairs: [string, string][]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of pairs) (out[name] ??= []).push(value);
  return out;
}

/** An API Gateway HTTP API event (payload format 2.0), on a named stage of the default endpoint when `stage` is given. */
export function httpApiEvent(sent: Sent, stage = '$default'): APIGatewayProxyEventV2 {
  const { path, query } = splitTarget(sent.path);
  const rawPath = stage === '$default' ? path : `/${stage}${path}`;
  const host = 'r3pmxmplak.execute-api.us-east-2.amazonaws.com';
  const method = sent.method ?? 'POST';
  return {
    version: '2.0',
    routeKey: 'ANY /webhooks/{proxy+}',
    rawPath,
    rawQueryString: query,
    cookies: COOKIES,
    headers: joined(wireHeaders(sent, host)),
    ...(query === '' ? {} : { queryStringParameters: joined(queryPairs(query, true)) }),
    requestContext: {
      accountId: '123456789012',
      apiId: 'r3pmxmplak',
      domainName: host,
      domainPrefix: 'r3pmxmplak',
      http: {
        method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '192.0.2.10',
        userAgent: 'platform-webhooks/1.0',
      },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey: 'ANY /webhooks/{proxy+}',
      stage,
      time: '10/Mar/2020:05:16:23 +0000',
      timeEpoch: 1583817383220,
    },
    pathParameters: { proxy: path.replace(/^\/webhooks\/?/, '') },
    ...(stage === '$default' ? {} : { stageVariables: { environment: stage } }),
    ...bodyOf(sent),
  } as APIGatewayProxyEventV2;
}

/** A Lambda function URL event (payload format 2.0, IAM auth off). */
export function functionUrlEvent(sent: Sent): LambdaFunctionURLEvent {
  const { path, query } = splitTarget(sent.path);
  const host = 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.us-east-1.on.aws';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: query,
    cookies: COOKIES,
    headers: joined(wireHeaders(sent, host)),
    ...(query === '' ? {} : { queryStringParameters: joined(queryPairs(query, true)) }),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6',
      domainName: host,
      domainPrefix: 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6',
      http: {
        method: sent.method ?? 'POST',
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '192.0.2.10',
        userAgent: 'platform-webhooks/1.0',
      },
      requestId: 'id',
      routeKey: '$default',
      stage: '$default',
      time: '12/Mar/2020:19:03:58 +0000',
      timeEpoch: 1583348638390,
    },
    ...bodyOf(sent),
  } as LambdaFunctionURLEvent;
}

/** An API Gateway REST API event (payload format 1.0), stage `prod`, header names in their usual capitals. */
export function restApiEvent(sent: Sent, { alwaysBase64 = false } = {}): APIGatewayProxyEvent {
  const { path, query } = splitTarget(sent.path);
  const host = '1234567890.execute-api.us-east-1.amazonaws.com';
  const capitalised = wireHeaders(sent, host).map(([name, value]): [string, string] => [
    name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase()),
    value,
  ]);
  const params = queryPairs(query, true);
  const method = sent.method ?? 'POST';
  return {
    resource: '/webhooks/{proxy+}',
    path,
    httpMethod: method,
    headers: single(capitalised),
    multiValueHeaders: multi(capitalised),
    queryStringParameters: params.length === 0 ? null : single(params),
    multiValueQueryStringParameters: params.length === 0 ? null : multi(params),
    pathParameters: { proxy: path.replace(/^\/webhooks\/?/, '') },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: '1234567890',
      authorizer: null,
      domainName: host,
      domainPrefix: '1234567890',
      extendedRequestId: 'BQGojGkAoAMF_5Q=',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '192.0.2.10',
        user: null,
        userAgent: 'platform-webhooks/1.0',
        userArn: null,
      },
      path: `/prod${path}`,
      protocol: 'HTTP/1.1',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTime: '09/Apr/2015:12:34:56 +0000',
      requestTimeEpoch: 1428582896000,
      resourceId: '123456',
      resourcePath: '/webhooks/{proxy+}',
      stage: 'prod',
    },
    ...bodyOf(sent, alwaysBase64),
  };
}

/** An Application Load Balancer target event; `multiValue`: the target group's multi-value headers on. */
export function albEvent(sent: Sent, { multiValue = false } = {}): ALBEvent {
  const { path, query } = splitTarget(sent.path);
  const headers = wireHeaders(sent, 'lambda-alb-123578498.us-east-1.elb.amazonaws.com').map(
    ([name, value]): [string, string] => [name.toLowerCase(), value],
  );
  const params = queryPairs(query, false);
  return {
    requestContext: {
      elb: {
        targetGroupArn:
          'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/lambda-279XGJDqGZ5rsrHC2Fjr/49e9d65c45c6791a',
      },
    },
    httpMethod: sent.method ?? 'POST',
    path,
    ...(multiValue
      ? { multiValueQueryStringParameters: multi(params), multiValueHeaders: multi(headers) }
      : { queryStringParameters: single(params), headers: single(headers) }),
    ...bodyOf(sent, multiValue),
  };
}

/** A Lambda result as the table reads an answer. */
export function answerOf(result: LambdaHttpResult): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = value;
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name.toLowerCase()] = values.join(', ');
  const text = result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  return {
    status: result.statusCode,
    headers,
    body: text === '' ? undefined : (JSON.parse(text) as Answer['body']),
  };
}
