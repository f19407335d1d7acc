import { jest } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { RequestTimeoutError, type WebhookError } from '../../src/errors.js';
import { collectBody, readBytes } from '../../src/receiver/body.js';

/** A request stream the test feeds by hand. */
const fakeRequest = () => new PassThrough() as unknown as IncomingMessage & PassThrough;

describe('collectBody deadline (fake timers)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('fails with 408 request_timeout when a trickled body is not complete at the deadline', () => {
    const req = fakeRequest();
    const outcomes: (WebhookError | undefined)[] = [];
    collectBody(req, 1024, (error) => void outcomes.push(error), 10_000);
    for (let second = 0; second < 9; second++) {
      req.write('{');
      jest.advanceTimersByTime(1000);
    }
    expect(outcomes).toEqual([]);
    jest.advanceTimersByTime(1000);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toBeInstanceOf(RequestTimeoutError);
    expect(outcomes[0]?.status).toBe(408);
    expect(outcomes[0]?.headers).toMatchObject({ connection: 'close' });
  });

  it('answers once: a body complete before the deadline is not failed later', async () => {
    const req = fakeRequest();
    const outcomes: (WebhookError | undefined)[] = [];
    collectBody(req, 1024, (error) => void outcomes.push(error), 10_000);
    req.end('{}');
    await new Promise((resolve) => setImmediate(resolve));
    jest.advanceTimersByTime(60_000);
    expect(outcomes).toEqual([undefined]);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('a pending body read does not keep the process alive', () => {
  afterEach(() => jest.restoreAllMocks());

  /** The one deadline timer `read` arms. */
  function deadlineOf(read: () => void): NodeJS.Timeout {
    const setTimer = jest.spyOn(globalThis, 'setTimeout');
    read();
    expect(setTimer).toHaveBeenCalledTimes(1);
    return setTimer.mock.results[0]!.value as NodeJS.Timeout;
  }

  it('collectBody unrefs its deadline', () => {
    const req = fakeRequest();
    const timer = deadlineOf(() => collectBody(req, 1024, () => undefined, 10_000));
    expect(timer.hasRef()).toBe(false);
    req.end('{}');
  });

  it('readBytes (the fetch handler) unrefs its deadline', () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const request = new Request('http://localhost/webhooks/chatbot', {
      method: 'POST',
      body,
      duplex: 'half',
    });
    const timer = deadlineOf(() => readBytes(request, Number.NaN, 1024, 10_000, () => undefined));
    expect(timer.hasRef()).toBe(false);
    controller.close();
  });
});
