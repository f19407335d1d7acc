import type { PlatformOperations } from '../../contract/index.js';
import type { PlatformContext, PlatformHandlers } from '../context.js';
import { registerOperations } from '../http/operations.js';
import type { Router } from '../http/router.js';
import { agentMessageHandlers } from './agent-messages.js';
import { liveChatHandlers } from './live-chat.js';
import { numberHandlers } from './numbers.js';
import { systemUserHandlers } from './system-users.js';
import { userHandlers } from './users.js';
import { webhookConfigHandlers } from './webhook-config.js';

/**
 * A handler for every operation of the platform API (the operations table, src/contract): the
 * type makes a missing one a compile error. To add an operation, add its row to the table and
 * its handler to one of the groups. The `/_emulator` control routes are not platform operations
 * (routes/control.ts).
 */
function platformHandlers(context: PlatformContext): PlatformHandlers {
  return {
    ...webhookConfigHandlers(context),
    ...numberHandlers(context),
    ...userHandlers(context),
    ...systemUserHandlers(context),
    ...liveChatHandlers(context),
    ...agentMessageHandlers(context),
  };
}

/**
 * Registers the platform API on `router`: a route per operation of `operations` (the table, with
 * the `pathOverrides` option applied), served by its handler.
 */
export function registerPlatformOperations(
  router: Router,
  context: PlatformContext,
  operations: PlatformOperations,
  options: { readonly checkResponses: boolean },
): void {
  registerOperations(router, context.prefixes, operations, platformHandlers(context), options);
}
