import { newId } from '../ids.js';
import {
  applyWebhookConfigSettings,
  compareWebhookConfigsForList,
  webhookConfigCreateSchema,
  webhookConfigUpdateSchema,
  type WebhookConfig,
} from '../../schemas/index.js';
import type { RouteGroup } from '../context.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { readPageQuery, toPage } from '../http/page.js';
import { joinPath, routesOf } from '../http/router.js';
import { parseBody } from '../http/validate.js';
import type { EmulatorState, StoredWebhookConfig } from '../state/index.js';

/** The documented row of a stored configuration (without the emulator's clientId). */
export function toWebhookConfigRow(config: StoredWebhookConfig): WebhookConfig {
  const { clientId: _clientId, ...row } = config;
  return row;
}

function ownConfig(state: EmulatorState, clientId: string, id: string): StoredWebhookConfig {
  const config = state.webhookConfigs.get(id);
  // another client's configuration is reported as unknown, not forbidden: ids do not leak
  if (config?.clientId !== clientId) throw new NotFoundError(`No webhook configuration with id ${id}`);
  return config;
}

/** Where the configuration API is served: `{messaging_prefix}/Messaging/MessagingClientWebHook`. */
export const webhookConfigPath = (messagingPrefix: string): string =>
  joinPath(messagingPrefix, '/Messaging/MessagingClientWebHook');

/**
 * Webhook configuration (section Webhook configuration) under
 * `{messaging_prefix}/Messaging/MessagingClientWebHook`: create, update, get default, list,
 * delete, with scope rules 1–8. Response bodies of create, update, get default and delete are
 * not shown in the documentation: the emulator answers 200 with the configuration row.
 */
export const webhookConfigRoutes: RouteGroup = (router, { state, prefixes, refuseSelfDelivery }) => {
  const on = routesOf(router, true, webhookConfigPath(prefixes.messaging));

  on.post('', ({ auth, body }) => {
    const input = parseBody(webhookConfigCreateSchema, body);
    refuseSelfDelivery(input);
    let messagingNumberId: string | null = null;
    let messagingNumberMsisdn: string | null = null;
    if (typeof input.messagingNumberId === 'string') {
      const number = state.numberByMessagingNumberId(input.messagingNumberId);
      // scope rule 6: the number must belong to the caller's client
      if (number?.clientId !== auth.client.id) {
        const linkIdGiven = state.numbers.get(input.messagingNumberId)?.clientId === auth.client.id;
        throw new ForbiddenError(
          linkIdGiven
            ? `messagingNumberId ${input.messagingNumberId} is a client-number link id; send the nested messagingNumber.id`
            : `messagingNumberId ${input.messagingNumberId} is not linked to your client`,
          { field: 'messagingNumberId' },
        );
      }
      messagingNumberId = number.messagingNumber.id;
      messagingNumberMsisdn = number.messagingNumber.number;
    }
    // scope rule 5: one default per client, one override per (client, number)
    const conflict = state.webhookConfigOf(auth.client.id, messagingNumberId);
    if (conflict !== undefined) {
      throw new ConflictError(
        messagingNumberId === null
          ? `The client already has a default webhook configuration (${conflict.id})`
          : `Number ${messagingNumberMsisdn ?? messagingNumberId} already has an override (${conflict.id})`,
        { details: { existingId: conflict.id } },
      );
    }
    const config: StoredWebhookConfig = {
      id: newId(),
      clientId: auth.client.id,
      messagingNumberId,
      messagingNumberMsisdn,
      ...applyWebhookConfigSettings(undefined, input),
    };
    state.putWebhookConfig(config);
    return { body: toWebhookConfigRow(config) };
  });
  on.put('', ({ auth, body }) => {
    const { id, messagingNumberId: _ignored, ...input } = parseBody(webhookConfigUpdateSchema, body);
    refuseSelfDelivery(input);
    // scope rule 7: scope cannot change on update, so messagingNumberId is ignored
    const current = ownConfig(state, auth.client.id, id);
    const { clientId, messagingNumberId, messagingNumberMsisdn } = current;
    const next: StoredWebhookConfig = {
      id,
      clientId,
      messagingNumberId,
      messagingNumberMsisdn,
      ...applyWebhookConfigSettings(current, input),
    };
    state.putWebhookConfig(next);
    return { body: toWebhookConfigRow(next) };
  });
  on.get('/getForCurrentLoginUser', ({ auth }) => {
    const found = state.webhookConfigOf(auth.client.id, null);
    if (found === undefined) throw new NotFoundError('The client has no default webhook configuration');
    return { body: toWebhookConfigRow(found) };
  });
  on.get('/list', ({ auth, query }) => {
    const { page, size } = readPageQuery(query);
    const rows = state
      .webhookConfigsOfClient(auth.client.id)
      .sort(compareWebhookConfigsForList)
      .map(toWebhookConfigRow);
    return { body: toPage(rows, page, size) };
  });
  on.delete('/:id', ({ auth, params }) => {
    const config = ownConfig(state, auth.client.id, params.id ?? '');
    // scope rule 8 follows from resolution: nothing else refers to the deleted row
    state.deleteWebhookConfig(config.id);
    return { body: toWebhookConfigRow(config) };
  });
};
