import { z } from 'zod';
import { WEBHOOK_TYPES } from '../../schemas/index.js';
import type { Emulator } from '../emulator.js';
import { NotFoundError } from '../errors.js';
import { faultProbabilitiesSchema, queuedFaultSchema } from '../emit/faults.js';
import type { Router } from '../http/router.js';
import { parseBody } from '../http/validate.js';
import { emulatorSeedSchema } from '../state.js';
import { ratingWidgetTriggers } from './live-chat.js';
import type { UncheckedTriggers } from '../triggers.js';

/** The reserved path prefix of the control surface. */
export const CONTROL_PREFIX = '/_emulator';

const DELIVERY_STATES = ['queued', 'held', 'delivering', 'delivered', 'failed'] as const;
const clockAdvanceSchema = z.object({ ms: z.number().min(0) });
const clockSetSchema = z.object({ time: z.number() });
const resetSchema = z.object({
  seed: z.union([z.literal('default'), z.literal('empty'), emulatorSeedSchema]).optional(),
});

/**
 * The control surface under `/_emulator`: every JS trigger and control method over HTTP, for
 * curl and non-Node users. No authentication (it is the emulator's, not the platform's). Each
 * trigger answers 200 with what the JS method returns; errors are the usual JSON error bodies.
 */
export function controlRoutes(router: Router, emulator: Emulator, triggers: UncheckedTriggers): void {
  const post = (path: string, handler: (body: unknown) => unknown): void => {
    router.add({
      method: 'POST',
      path: `${CONTROL_PREFIX}${path}`,
      auth: false,
      handler: ({ body }) => ({ status: 200, body: handler(body ?? {}) }),
    });
  };

  router.add({
    method: 'GET',
    path: CONTROL_PREFIX,
    auth: false,
    handler: () => ({ status: 200, body: { ...emulator.describe(), routes: router.routes() } }),
  });
  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/state`,
    auth: false,
    handler: () => ({ status: 200, body: emulator.describe() }),
  });
  post('/reset', (body) => {
    const { seed } = parseBody(resetSchema, body);
    emulator.reset(seed);
    return emulator.describe();
  });

  post('/customer-message', (body) => triggers.customerMessage(body));
  post('/bot-reply', (body) => triggers.botReply(body));
  post('/assign-agent', (body) => triggers.assignAgent(body));
  post('/unassign-agent', (body) => triggers.unassignAgent(body));
  post('/messages', (body) => triggers.sendMessage(body));
  router.add({
    method: 'POST',
    path: `${CONTROL_PREFIX}/messages/:gstId/status`,
    auth: false,
    handler: ({ body, params }) => ({
      status: 200,
      body: triggers.updateMessageStatus({ ...asRecord(body), gstId: params.gstId ?? '' }),
    }),
  });
  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/messages/:gstId`,
    auth: false,
    handler: ({ params }) => {
      const message = emulator.message(params.gstId ?? '');
      if (message === undefined) throw new NotFoundError(`No outbound message ${params.gstId ?? ''}`);
      return { status: 200, body: message };
    },
  });
  post('/sessions', (body) => triggers.sessionChange(body));
  post('/flag-number', (body) => triggers.flagNumber(body));
  post('/partner-events', (body) => triggers.partnerEvent(body));

  // scope rules 1-3 as the emulator applies them: which configuration events on a number use
  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/numbers/:number/webhook-config`,
    auth: false,
    handler: ({ params }) => {
      const config = emulator.webhookConfigFor(params.number ?? '');
      if (config === undefined) {
        throw new NotFoundError(`No webhook configuration applies to ${params.number ?? ''}`);
      }
      return { status: 200, body: config };
    },
  });

  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/chat-participants`,
    auth: false,
    handler: () => ({ status: 200, body: emulator.chatParticipants() }),
  });
  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/chat-participants/:id`,
    auth: false,
    handler: ({ params }) => {
      const participant = emulator.chatParticipant(params.id ?? '');
      if (participant === undefined) throw new NotFoundError(`No chat participant ${params.id ?? ''}`);
      return { status: 200, body: participant };
    },
  });

  // rating widgets recorded by chat termination (routes/live-chat.ts); ?chatParticipantId= filters
  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/rating-widgets`,
    auth: false,
    handler: ({ query }) => ({
      status: 200,
      body: ratingWidgetTriggers(emulator.state, query.get('chatParticipantId') ?? undefined),
    }),
  });

  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/clock`,
    auth: false,
    handler: () => ({ status: 200, body: { now: emulator.clock.now() } }),
  });
  post('/clock/advance', (body) => ({ now: emulator.advanceClock(parseBody(clockAdvanceSchema, body).ms) }));
  post('/clock', (body) => ({ now: emulator.setClock(parseBody(clockSetSchema, body).time) }));

  router.add({
    method: 'GET',
    path: `${CONTROL_PREFIX}/deliveries`,
    auth: false,
    handler: ({ query }) => {
      const type = query.get('type');
      const state = query.get('state');
      const filter = parseBody(
        z.object({ type: z.enum(WEBHOOK_TYPES).optional(), state: z.enum(DELIVERY_STATES).optional() }),
        { ...(type === null ? {} : { type }), ...(state === null ? {} : { state }) },
      );
      return { status: 200, body: emulator.deliveries(filter) };
    },
  });
  router.add({
    method: 'DELETE',
    path: `${CONTROL_PREFIX}/deliveries`,
    auth: false,
    handler: () => {
      emulator.clearDeliveries();
      return { status: 204 };
    },
  });
  router.add({
    method: 'POST',
    path: `${CONTROL_PREFIX}/deliveries/:id/resend`,
    auth: false,
    handler: ({ params }) => ({ status: 200, body: emulator.resend(params.id ?? '') }),
  });
  router.add({
    method: 'POST',
    path: `${CONTROL_PREFIX}/idle`,
    auth: false,
    handler: async () => {
      await emulator.idle();
      return { status: 200, body: { deliveries: emulator.deliveries().length } };
    },
  });

  post('/faults', (body) => {
    const { fault, type, count } = parseBody(queuedFaultSchema, body);
    emulator.injectFault(fault, type === undefined ? { count } : { type, count });
    return { queued: true };
  });
  router.add({
    method: 'PUT',
    path: `${CONTROL_PREFIX}/faults/probabilities`,
    auth: false,
    handler: ({ body }) => {
      emulator.setFaultProbabilities(parseBody(faultProbabilitiesSchema, body));
      return { status: 200, body: { probabilities: true } };
    },
  });
  router.add({
    method: 'DELETE',
    path: `${CONTROL_PREFIX}/faults`,
    auth: false,
    handler: () => {
      emulator.clearFaults();
      return { status: 204 };
    },
  });
}

function asRecord(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
