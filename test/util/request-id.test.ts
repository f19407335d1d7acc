// Request ids the pipeline makes for requests that brought none: UUID-shaped (version 8, RFC 9562
// variant), so that `messaging.message.id` and a user's uuid column take them, and unique.
import { nextRequestId } from '../../src/util/request-id.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('nextRequestId', () => {
  it('is a version-8 UUID, different on every call', () => {
    const ids = Array.from({ length: 50_000 }, () => nextRequestId());
    for (const id of ids.slice(0, 1000)) expect(id).toMatch(UUID_V8);
    expect(ids.at(-1)).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
