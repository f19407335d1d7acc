import type { Logger } from 'pino';
import type { PathPrefixes, PlatformOperations } from '../contract/index.js';
import type { DeliveryStatus } from '../schemas/index.js';
import type { EmulatorClock } from './clock.js';
import type { ChatEvents } from './emit/chat-events.js';
import type { OperationHandlers } from './http/operations.js';
import type { Router } from './http/router.js';
import type { EmulatorState } from './state/index.js';

/** The path prefixes of the two documented APIs. */
export type EmulatorPrefixes = PathPrefixes;

/**
 * What the operation handlers and route groups need: the state, the clock, the logger and the
 * prefixes. The state's Maps are never replaced (reset() clears them), so holding `state` is safe.
 */
export interface EmulatorContext {
  readonly state: EmulatorState;
  readonly clock: EmulatorClock;
  readonly logger: Logger;
  readonly prefixes: EmulatorPrefixes;
  /** The emulator clock as a Date. */
  now(): Date;
  /**
   * Throws a 400 naming the field when a URL field of a webhook configuration body names this
   * emulator itself (its listen address and port, a loopback name of it, an `allowedHosts`
   * alias): the emulator never delivers to itself. The configuration API calls it first.
   */
  readonly refuseSelfDelivery: (body: Readonly<Record<string, unknown>>) => void;
}

/**
 * The context of the platform operations' handlers: the route groups' context and what only the
 * emulator's own operations use (internal: its types are the emulator's, not the package's).
 */
export interface PlatformContext extends EmulatorContext {
  /** The events a message in a chat causes (bot-reply and Send an agent message share them). */
  readonly chatEvents: ChatEvents;
  /** How Send an agent message (v2) and its media upload behave (the `agentMessages` option). */
  readonly agentMessages: {
    readonly receipts: readonly DeliveryStatus[];
    readonly maxMediaBytes: number;
  };
}

/** A group of extra routes (the `routeGroups` option), registered once when the emulator is created. */
export type RouteGroup = (router: Router, context: EmulatorContext) => void;

/** A handler per operation of the platform API, by operation id (routes/index.ts). */
export type PlatformHandlers = OperationHandlers<PlatformOperations>;
