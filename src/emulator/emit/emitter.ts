import {
  parseWebhook,
  webhookUrlFor,
  type ChatbotPayloadVersion,
  type WebhookType,
} from '../../schemas/index.js';
import type { EmulatorClock } from '../clock.js';
import { InternalError } from '../errors.js';
import {
  webhookConfigFor,
  type EmulatorNumber,
  type EmulatorState,
  type StoredWebhookConfig,
} from '../state/index.js';
import type { Deliverer, DeliveryLogEntry } from './delivery.js';
import type { FaultPlanner, ResolvedFault } from './faults.js';
import type { Payload } from './payloads.js';

/** Emits events: scope resolution, URL selection, validation, then delivery. */
export interface Emitter {
  /** Scope rules 1–3: the configuration for an event on `number`. */
  configFor(number: EmulatorNumber): StoredWebhookConfig | undefined;
  /**
   * Emits one payload of `type` for an event on `number`. Returns the delivery, or undefined
   * when the resolved configuration has no URL for the type (empty or missing: no emission).
   */
  emit(
    type: WebhookType,
    number: EmulatorNumber,
    payload: Payload,
    options?: {
      readonly faults?: readonly ResolvedFault[];
      readonly chatbotPayloadVersion?: ChatbotPayloadVersion;
      /** Drift simulation: the payload may leave the documented contract; the log marks it. */
      readonly undocumented?: boolean;
      /**
       * The conversation (chat participant id) the event belongs to: its events to one URL are
       * delivered in order. @default the number (session and partner events)
       */
      readonly conversation?: string;
    },
  ): DeliveryLogEntry | undefined;
}

/** Creates the emitter over the state, clock, fault planner and deliverer. */
export function createEmitter(
  state: EmulatorState,
  clock: EmulatorClock,
  faults: FaultPlanner,
  deliverer: Deliverer,
): Emitter {
  // scope rules 1-3 through the state's (client, number) index: the override, else the default
  const configFor = (number: EmulatorNumber): StoredWebhookConfig | undefined =>
    webhookConfigFor(state, number);
  return {
    configFor,
    emit(type, number, payload, options = {}) {
      const url = webhookUrlFor(configFor(number), type);
      if (url === undefined) return undefined;
      const undocumented = options.undocumented ?? false;
      // one source of truth: whatever the emulator sends must pass the receiver's schemas,
      // unless a test asked for drift on purpose
      const parsed = undocumented
        ? ({ success: true } as const)
        : parseWebhook(
            type,
            payload,
            options.chatbotPayloadVersion === undefined
              ? {}
              : { chatbotPayloadVersion: options.chatbotPayloadVersion },
          );
      if (!parsed.success) {
        throw new InternalError(`Emulator built an invalid ${type} payload`, {
          details: { issues: parsed.issues },
        });
      }
      return deliverer.enqueue({
        type,
        url,
        payload,
        messagingNumber: number.messagingNumber.number,
        emittedAt: clock.now(),
        faults: faults.plan(type, options.faults ?? []),
        undocumented,
        orderKey: `${url} ${options.conversation ?? number.messagingNumber.number}`,
      });
    },
  };
}
