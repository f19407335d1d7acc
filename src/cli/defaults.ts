import { InvalidArgumentError } from 'commander';
/*
 * Defaults the commands share, in a module of their own: the program's --help shows them
 * without loading the emulator or the replay code.
 */

/**
 * Deliveries in flight at once for `emulator` (`--delivery-concurrency`) and requests in flight
 * for `replay` (`--concurrency`) when not told otherwise. Not 1, the library's default: there,
 * tests read the global emission order across conversations; from the command line a receiver
 * gets real traffic, where a slow answer for one conversation must not hold back the others,
 * and one at a time caps a load test or a replay at one round trip per event. One
 * conversation's events still go one at a time, in order, whatever the number (per URL in the
 * emulator). 16: enough to keep a local receiver busy (the fan-out bench runs 16 and 32), few
 * enough not to flood one. `1` restores the global order.
 */
export const CLI_CONCURRENCY = 16;

/**
 * The port `emulator` listens on when not told otherwise, and the one `trigger` calls: a fixed
 * port, so `trigger` finds a running emulator without being told where. `--port 0` picks any
 * free port (then pass `trigger --emulator <url>`).
 */
export const DEFAULT_EMULATOR_PORT = 4010;

/** Where `trigger` finds the emulator by default. */
export const DEFAULT_EMULATOR_URL = `http://127.0.0.1:${DEFAULT_EMULATOR_PORT}`;

/*
 * Parsers of option values (commander's argParser), here for the same reason: building the
 * program's options must not load the emulator. Each throws commander's InvalidArgumentError,
 * which commander prints as `error: option '--x <v>' argument 'y' is invalid. <reason>`.
 */

/** `value` as an http(s) URL; `example` shows one in the error when `value` is not a URL at all. */
export function httpUrl(value: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`expected an http(s) URL such as ${example}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError(`expected an http(s) URL, got the scheme ${url.protocol}`);
  }
  return url;
}

/** A base URL (http or https), without a trailing slash: `--forward-to`, `--emulator`. */
export function parseBaseUrl(value: string): string {
  const url = httpUrl(value, 'http://localhost:3000/webhooks');
  if (url.search !== '' || url.hash !== '') {
    throw new InvalidArgumentError(
      'expected a base URL without a query or fragment (the token goes in --token)',
    );
  }
  return url.href.replace(/\/+$/, '');
}

/** An http(s) URL, a query allowed: `--forward-chatbot-to`, `--forward-to` of `listen`. */
export function parseUrl(value: string): string {
  const url = httpUrl(value, 'http://localhost:3000/webhooks/chatbot');
  if (url.hash !== '') throw new InvalidArgumentError('expected a URL without a fragment');
  return url.href;
}

/** A non-empty value without spaces: `--token`. */
export function parseToken(value: string): string {
  if (value === '' || /\s/.test(value)) throw new InvalidArgumentError('expected a token without spaces');
  return value;
}

/** HTTP header name characters (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `--header 'Name: value'` (repeatable): collects them into one record, names lower-cased. */
export function parseHeader(
  value: string,
  previous: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const colon = value.indexOf(':');
  const name = colon === -1 ? '' : value.slice(0, colon).trim();
  const headerValue = colon === -1 ? '' : value.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name))
    throw new InvalidArgumentError("expected 'Name: value', e.g. 'x-webhook-token: s3cret'");
  // eslint-disable-next-line no-control-regex -- control characters would split or forge headers
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(headerValue)) {
    throw new InvalidArgumentError('the header value has control characters');
  }
  return { ...previous, [name.toLowerCase()]: headerValue };
}

/** A repeatable option: each value appended to the list. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}
