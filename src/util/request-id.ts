import { randomUUID } from 'node:crypto';

/** First and last counter values: eight hex digits each, small integers (V8 Smis) all the way. */
const FIRST = 0x1000_0000;
const LAST = 0x3fff_ffff;

let prefix = '';
let counter = LAST;

/**
 * A request id for a request that brought none: UUID-shaped (so `messaging.message.id` and a
 * user's `uuid` column take it), unique within and across processes, but not a random UUID per
 * request. It is a prefix of 90 random bits drawn once per 805 million ids, with version 8
 * ("custom", RFC 9562) in place of randomUUID's 4, then a counter in 8 hex digits. It costs a
 * quarter of a `randomUUID()` per request (figures: bench/HISTORY.md). The prefix is drawn on
 * first use, not at module scope, where a Cloudflare Worker may not generate random values.
 */
export function nextRequestId(): string {
  if (counter === LAST) {
    // xxxxxxxx-xxxx-4xxx-yxxx-xxxx from a random UUID (its variant bits kept), version 8.
    const random = randomUUID();
    prefix = `${random.slice(0, 14)}8${random.slice(15, 28)}`;
    counter = FIRST;
  } else counter += 1;
  return prefix + counter.toString(16);
}
