import type { MessagingClientNumber } from '../../schemas/index.js';
import type { RouteGroup } from '../context.js';
import { readPageQuery, toPage } from '../http/page.js';
import { joinPath, routesOf } from '../http/router.js';

/**
 * Number lookup: GET `{messaging_prefix}/Messaging/MessagingClientNumbers/getForCurrentLoginUser`
 * with `searchString`, a partial match on the phone number ("any fragment works"; the leading
 * + is optional). Missing or empty searchString lists every number of the caller's client,
 * ordered by phone number.
 */
export const numberRoutes: RouteGroup = (router, { state, prefixes }) => {
  const path = joinPath(prefixes.messaging, '/Messaging/MessagingClientNumbers/getForCurrentLoginUser');
  routesOf(router, true).get(path, ({ auth, query }) => {
    const { page, size } = readPageQuery(query);
    const search = (query.get('searchString') ?? '').trim();
    const digits = search.replace(/^\+/, '');
    const rows: MessagingClientNumber[] = state
      .numbersOfClient(auth.client.id)
      .filter((number) => number.messagingNumber.number.includes(digits))
      .sort((a, b) => a.messagingNumber.number.localeCompare(b.messagingNumber.number))
      .map((number) => ({ id: number.id, messagingNumber: { ...number.messagingNumber } }));
    return { body: toPage(rows, page, size) };
  });
};
