import { z } from 'zod';
import { ClockValueError, clockAdvanceSchema, emulatorTimeSchema } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { faultProbabilitiesSchema, queuedFaultSchema } from '../emit/faults.js';
import { routeShorthands, type Router } from '../http/router.js';
import { parseBody } from '../http/validate.js';
import {
  chatListQuerySchema,
  chatParticipantPage,
  deliveryListQuerySchema,
  deliveryPage,
  messageListQuerySchema,
  messagePage,
  parseListQuery,
  ratingWidgetListQuerySchema,
  ratingWidgetPage,
} from '../listings.js';
import { emulatorSeedSchema, SnapshotError, type EmulatorSnapshotInput } from '../state/index.js';
import type { UncheckedTriggers } from '../triggers.js';
import type { Emulator, EmulatorDescription } from '../types.js';
import { maskApiKey, maskSnapshotCredentials, revealsKeys } from '../state/credentials.js';

/** The reserved path prefix of the control surface. */
export const CONTROL_PREFIX = '/_emulator';

// the clock's own domain (clock.ts): the times a Date holds, as at every other entrance
const clockAdvanceBodySchema = z.object({ ms: clockAdvanceSchema });
const clockSetBodySchema = z.object({ time: emulatorTimeSchema });
const resetSchema = z.object({
  seed: z.union([z.literal('default'), z.literal('empty'), emulatorSeedSchema]).optional(),
});

/**
 * The control surface under `/_emulator`: every JS trigger and control method over HTTP, for
 * curl and non-Node users. No authentication (it is the emulator's, not the platform's). Each
 * trigger answers 200 with what the JS method returns; errors are the usual JSON error bodies.
 */
export function controlRoutes(
  router: Router,
  emulator: Emulator,
  triggers: UncheckedTriggers,
  isSeedKey: (userId: string, apiKey: string) => boolean,
): void {
  const on = routeShorthands(router, false, CONTROL_PREFIX);
  /** A POST whose answer is what `handler` returns for the JSON body (`{}` when none). */
  const post = (path: string, handler: (body: unknown) => unknown): void =>
    on.post(path, ({ body }) => ({ status: 200, body: handler(body ?? {}) }));
  /** A GET of one record by the `:param` of `path`, 404 with `notFound` when there is none. */
  const getOne = (path: string, param: string, find: (id: string) => unknown, notFound: string): void =>
    on.get(path, ({ params }) => {
      const found = find(params[param] ?? '');
      if (found === undefined) throw new NotFoundError(`${notFound} ${params[param] ?? ''}`);
      return { body: found };
    });

  /**
   * The summary as the control routes show it: the seed's API keys (as the inspector and the CLI
   * show them), any other key masked, unless the request asks `?reveal=keys`.
   */
  const described = (query: URLSearchParams): EmulatorDescription => {
    const description = emulator.describe();
    if (revealsKeys(query)) return description;
    return {
      ...description,
      users: description.users.map((user) =>
        isSeedKey(user.id, user.apiKey) ? user : { ...user, apiKey: maskApiKey(user.apiKey) },
      ),
    };
  };

  on.get('', ({ query }) => ({ body: { ...described(query), routes: router.routes() } }));
  on.get('/state', ({ query }) => ({ body: described(query) }));
  // the platform interface's OpenAPI document (src/openapi), its server this emulator; loaded on first use
  on.get('/openapi.json', async ({ headers }) => ({
    body: (await import('../../openapi/index.js')).servedOpenApiDocument(emulator, headers.host),
  }));
  // the whole state (a snapshot) out and back in; a bad snapshot is a 400 naming its field
  // credentials masked (and the snapshot marked so, which a restore refuses) unless ?reveal=keys:
  // a snapshot to restore is taken with ?reveal=keys
  on.get('/snapshot', ({ query }) => ({
    body: revealsKeys(query) ? emulator.snapshot() : maskSnapshotCredentials(emulator.snapshot(), isSeedKey),
  }));
  on.post('/state', ({ body, query }) => {
    try {
      // restore() validates whatever it is given: the body's shape is its to check
      emulator.restore((body ?? {}) as EmulatorSnapshotInput);
    } catch (error) {
      if (error instanceof SnapshotError) {
        throw new BadRequestError(error.message, { field: error.path, cause: error });
      }
      throw error;
    }
    return { body: described(query) };
  });
  on.post('/reset', ({ body, query }) => {
    const { seed } = parseBody(resetSchema, body ?? {});
    emulator.reset(seed);
    return { body: described(query) };
  });

  post('/customer-message', (body) => triggers.customerMessage(body));
  post('/bot-reply', (body) => triggers.botReply(body));
  post('/assign-agent', (body) => triggers.assignAgent(body));
  post('/unassign-agent', (body) => triggers.unassignAgent(body));
  post('/messages', (body) => triggers.sendMessage(body));
  on.post('/messages/:gstId/status', ({ body, params }) => ({
    body: triggers.updateMessageStatus({ ...asRecord(body), gstId: params.gstId ?? '' }),
  }));
  getOne('/messages/:gstId', 'gstId', (gstId) => emulator.message(gstId), 'No outbound message');
  // listings: a page at a time (limit, cursor, order), filtered on the server (listings.ts)
  on.get('/messages', ({ query }) => ({
    body: messagePage(emulator.state, parseListQuery(messageListQuerySchema, query)),
  }));
  post('/sessions', (body) => triggers.sessionChange(body));
  post('/flag-number', (body) => triggers.flagNumber(body));
  post('/partner-events', (body) => triggers.partnerEvent(body));

  // scope rules 1-3 as the emulator applies them: which configuration events on a number use
  getOne(
    '/numbers/:number/webhook-config',
    'number',
    (number) => emulator.webhookConfigFor(number),
    'No webhook configuration applies to',
  );

  on.get('/chat-participants', ({ query }) => ({
    body: chatParticipantPage(emulator.state, parseListQuery(chatListQuerySchema, query)),
  }));
  getOne('/chat-participants/:id', 'id', (id) => emulator.chatParticipant(id), 'No chat participant');

  // rating widgets recorded by chat termination (routes/live-chat.ts); ?chatParticipantId= filters
  on.get('/rating-widgets', ({ query }) => ({
    body: ratingWidgetPage(emulator.state, parseListQuery(ratingWidgetListQuerySchema, query)),
  }));

  on.get('/clock', () => ({ body: { now: emulator.clock.now() } }));
  post('/clock/advance', (body) => {
    const { ms } = parseBody(clockAdvanceBodySchema, body);
    return { now: onClock('ms', () => emulator.advanceClock(ms)) };
  });
  post('/clock', (body) => {
    const { time } = parseBody(clockSetBodySchema, body);
    return { now: onClock('time', () => emulator.setClock(time)) };
  });

  on.get('/deliveries', ({ query }) => ({
    body: deliveryPage(emulator.deliveries(), parseListQuery(deliveryListQuerySchema, query)),
  }));
  on.delete('/deliveries', () => {
    emulator.clearDeliveries();
    return { status: 204 };
  });
  on.post('/deliveries/:id/resend', ({ params }) => ({ body: emulator.resend(params.id ?? '') }));
  // bounded (the idleTimeoutMs option): `idle: false` and the ids still pending when it came first
  on.post('/idle', async () => {
    const { idle, pending } = await emulator.idle();
    return {
      body: { deliveries: emulator.deliveries().length, idle, pending: pending.map((entry) => entry.id) },
    };
  });

  post('/faults', (body) => {
    const { fault, type, count } = parseBody(queuedFaultSchema, body);
    emulator.injectFault(fault, type === undefined ? { count } : { type, count });
    return { queued: true };
  });
  on.put('/faults/probabilities', ({ body }) => {
    emulator.setFaultProbabilities(parseBody(faultProbabilitiesSchema, body));
    return { body: { probabilities: true } };
  });
  on.delete('/faults', () => {
    emulator.clearFaults();
    return { status: 204 };
  });
}

/** A clock call whose refusal (a time past what a Date holds) is a 400 naming `field`. */
function onClock(field: string, move: () => number): number {
  try {
    return move();
  } catch (error) {
    if (error instanceof ClockValueError) throw new BadRequestError(error.message, { field, cause: error });
    throw error;
  }
}

function asRecord(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
