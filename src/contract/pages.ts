import { messagingClientNumberSchema, pageSchema, userResponseSchema } from '../schemas/resources.js';
import { webhookConfigSchema } from '../schemas/webhook-config.js';

/*
 * The Page of each paged resource, made once: the operations table answers with these, the
 * typed client checks them and the OpenAPI document names them (a schema is known by identity).
 */

/** A Page of webhook configurations (List). */
export const webhookConfigPageSchema = pageSchema(webhookConfigSchema);
/** A Page of number lookup rows. */
export const messagingClientNumberPageSchema = pageSchema(messagingClientNumberSchema);
/** A Page of UserResponse (List users, paginated). */
export const userResponsePageSchema = pageSchema(userResponseSchema);
