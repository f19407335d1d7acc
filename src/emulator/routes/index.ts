import type { RouteGroup } from '../context.js';
import { numberRoutes } from './numbers.js';
import { webhookConfigRoutes } from './webhook-config.js';
import { liveChatRoutes } from './live-chat.js';
import { systemUserRoutes } from './system-users.js';
import { userRoutes } from './users.js';

/**
 * The documented API's route groups, registered in this order. To add a group, write
 * `routes/<name>.ts` exporting a {@link RouteGroup} and append it here. The `/_emulator` control
 * routes are registered separately (routes/control.ts).
 */
export const API_ROUTE_GROUPS: readonly RouteGroup[] = [
  webhookConfigRoutes,
  numberRoutes,
  userRoutes,
  systemUserRoutes,
  liveChatRoutes,
];
