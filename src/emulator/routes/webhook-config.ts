import { newId } from '../ids.js';
import { operationPath, PLATFORM_OPERATIONS } from '../../contract/index.js';
import {
  applyWebhookConfigSettings,
  compareWebhookConfigsForList,
  type WebhookConfig,
} from '../../schemas/index.js';
import type { EmulatorContext, PlatformHandlers } from '../context.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { toPage } from '../http/page.js';
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
  operationPath(PLATFORM_OPERATIONS.createWebhookConfig, { messaging: messagingPrefix, chat: '' });

/**
 * Webhook configuration (section Webhook configuration): create, update, get default, list,
 * delete, with scope rules 1–8. Response bodies of create, update, get default and delete are
 * not shown in the documentation: the emulator answers with the configuration row.
 */
export const webhookConfigHandlers = ({ state, refuseSelfDelivery }: EmulatorContext) =>
  ({
    createWebhookConfig({ auth, body: input }) {
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
      return toWebhookConfigRow(config);
    },
    updateWebhookConfig({ auth, body }) {
      // scope rule 7: scope cannot change on update, so messagingNumberId is ignored
      const { id, messagingNumberId: _ignored, ...input } = body;
      refuseSelfDelivery(input);
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
      return toWebhookConfigRow(next);
    },
    getDefaultWebhookConfig({ auth }) {
      const found = state.webhookConfigOf(auth.client.id, null);
      if (found === undefined) throw new NotFoundError('The client has no default webhook configuration');
      return toWebhookConfigRow(found);
    },
    listWebhookConfigs({ auth, query }) {
      const rows = state
        .webhookConfigsOfClient(auth.client.id)
        .sort(compareWebhookConfigsForList)
        .map(toWebhookConfigRow);
      return toPage(rows, query);
    },
    deleteWebhookConfig({ auth, params }) {
      const config = ownConfig(state, auth.client.id, params.id);
      // scope rule 8 follows from resolution: nothing else refers to the deleted row
      state.deleteWebhookConfig(config.id);
      return toWebhookConfigRow(config);
    },
  }) satisfies Partial<PlatformHandlers>;
