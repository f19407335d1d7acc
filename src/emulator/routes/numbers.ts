import type { MessagingClientNumber } from '../../schemas/index.js';
import type { EmulatorContext, PlatformHandlers } from '../context.js';
import { toPage } from '../http/page.js';

/**
 * Number lookup: `searchString` is a partial match on the phone number ("any fragment works";
 * the leading + is optional). Missing or empty searchString lists every number of the caller's
 * client, ordered by phone number.
 */
export const numberHandlers = ({ state }: EmulatorContext) =>
  ({
    lookupNumbers({ auth, query }) {
      const digits = (query.searchString ?? '').trim().replace(/^\+/, '');
      const rows: MessagingClientNumber[] = state
        .numbersOfClient(auth.client.id)
        .filter((number) => number.messagingNumber.number.includes(digits))
        .sort((a, b) => a.messagingNumber.number.localeCompare(b.messagingNumber.number))
        .map((number) => ({ id: number.id, messagingNumber: { ...number.messagingNumber } }));
      return toPage(rows, query);
    },
  }) satisfies Partial<PlatformHandlers>;
