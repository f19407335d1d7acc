import type { WebhookType } from '../schemas/index.js';

/** One value per webhook type and one for requests of no known type. */
export type PerType<T> = Readonly<Record<WebhookType | 'unknown', T>>;

/**
 * One value per webhook type and for `unknown`, each made by `make`, and the lookup of one by
 * name: a switch, for counters updated several times per request, where a keyed access whose key
 * varies from call to call (`values[type]`) goes through V8's megamorphic lookups, a load and a
 * store each time. A name that is none of them (a job read back from Redis may name any type)
 * finds undefined.
 */
export function perType<T>(make: () => T): {
  readonly values: PerType<T>;
  readonly of: (name: string) => T | undefined;
} {
  const incoming = make();
  const status = make();
  const session = make();
  const event = make();
  const chatbot = make();
  const unknown = make();
  return {
    values: { incoming, status, session, event, chatbot, unknown },
    of: (name) => {
      switch (name) {
        case 'incoming':
          return incoming;
        case 'status':
          return status;
        case 'session':
          return session;
        case 'event':
          return event;
        case 'chatbot':
          return chatbot;
        case 'unknown':
          return unknown;
        default:
          return undefined;
      }
    },
  };
}
