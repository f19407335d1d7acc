/**
 * messaging-webhooks/relay: develop against the real platform from a laptop. A relay deployed
 * where the platform reaches it receives the webhooks (the package's receiver: validated,
 * deduplicated, answered at once), buffers them in order and streams them over Server-Sent Events
 * to a listener on the developer's machine, which forwards each to the local app and reports its
 * answer. The `messaging-webhooks relay` and `messaging-webhooks listen` commands run both.
 *
 * @example
 * // where the platform reaches it (any runtime with web Request/Response)
 * import { createRelay } from 'messaging-webhooks/relay';
 * const relay = createRelay({ secret: process.env.RELAY_SECRET!, token: process.env.WEBHOOK_TOKEN });
 * Deno.serve((request) => relay(request));
 * // on the laptop
 * // npx messaging-webhooks listen --relay https://relay.example.com --secret $RELAY_SECRET --forward-to http://localhost:3000/webhooks
 *
 * @packageDocumentation
 */
export {
  createRelay,
  RELAY_EVENTS,
  RELAY_PATHS,
  type Relay,
  type RelayBufferStats,
  type RelayedEvent,
  type RelayOptions,
  type RelayStats,
} from './relay.js';
export {
  createRelayListener,
  RelayRefusedError,
  type ForwardReport,
  type RelayListener,
  type RelayListenerOptions,
  type RelayListenerStats,
} from './listener.js';
export { createRelayServer, type FetchHandler } from './node.js';
