import type { DeliveryLogEntry } from '../../../src/emulator/index.js';
import { logPart } from '../../../src/emulator/inspector/html.js';
import { deliveryNotes, FIRST_PAGE } from '../../../src/emulator/inspector/model.js';

// What the delivery log says of a receiver's answer: a duplicate acknowledgement, a chatbot
// event's direction, and a failure in plain words. The receiver's body is sender-controlled.

const entry = (fields: Partial<DeliveryLogEntry>): DeliveryLogEntry => ({
  id: 'd1',
  sequence: 1,
  type: 'incoming',
  url: 'http://127.0.0.1:3000/webhooks/incoming',
  payload: {},
  messagingNumber: '+27820000001',
  emittedAt: 0,
  faults: [],
  duplicateOf: null,
  undocumented: false,
  resendOf: null,
  state: 'delivered',
  attempts: 1,
  responseStatus: 200,
  latencyMs: 3,
  error: null,
  responseBody: '{"received":true}',
  ...fields,
});

describe('deliveryNotes', () => {
  it.each([
    ['a duplicate acknowledgement', { responseBody: '{"received":true,"duplicate":true}' }, true],
    ['a plain acknowledgement', {}, false],
    ['a body that is not JSON', { responseBody: 'duplicate: true' }, false],
    [
      'a refusal mentioning duplicates',
      {
        responseStatus: 409,
        responseBody: '{"duplicate":true}',
        error: 'Receiver answered 409',
        state: 'failed' as const,
      },
      false,
    ],
  ])('reads %s', (_name, fields, duplicate) => {
    expect(deliveryNotes(entry(fields)).answeredDuplicate).toBe(duplicate);
  });

  it('gives the direction of chatbot events only', () => {
    expect(deliveryNotes(entry({ type: 'chatbot', payload: { direction: 'OUTGOING' } })).direction).toBe(
      'OUTGOING',
    );
    expect(deliveryNotes(entry({ type: 'chatbot', payload: { direction: '<b>' } })).direction).toBeNull();
    expect(deliveryNotes(entry({ payload: { direction: 'INCOMING' } })).direction).toBeNull();
  });

  it.each([
    [
      'connection refused',
      { error: 'fetch failed: connect ECONNREFUSED 127.0.0.1:3000', responseStatus: null },
    ],
    ['timeout (no answer within 5000 ms)', { error: 'Timed out after 5000 ms', responseStatus: null }],
    [
      'HTTP 503: Service Unavailable',
      { error: 'Receiver answered 503', responseStatus: 503, responseBody: 'Service\n  Unavailable' },
    ],
    ['HTTP 500', { error: 'Receiver answered 500', responseStatus: 500, responseBody: '' }],
    [
      `HTTP 500: ${'x'.repeat(80)}…`,
      { error: 'Receiver answered 500', responseStatus: 500, responseBody: 'x'.repeat(500) },
    ],
    [
      'Injected failure (fault injection)',
      { error: 'Injected failure (fault injection)', responseStatus: null },
    ],
  ])('words a failure as %j', (reason, fields) => {
    expect(deliveryNotes(entry({ state: 'failed', ...fields })).failure).toBe(reason);
  });

  it('escapes the receiver body quoted in a failed row', () => {
    const html = logPart(
      [
        entry({
          state: 'failed',
          responseStatus: 500,
          error: 'Receiver answered 500',
          responseBody: '<img src=x onerror=alert(1)>',
        }),
      ],
      FIRST_PAGE,
    );
    expect(html).toContain('<span class="why">HTTP 500: &#60;img src=x onerror=alert(1)&#62;</span>');
    expect(html).not.toContain('<img');
  });
});
