import type { ADMIN_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type AdminContext = Pick<CoreContext, 'administration'>;

export const adminHandlers = ({
  administration,
}: AdminContext): RpcHandlers<typeof ADMIN_CHANNELS> => ({
  'admin.webhooks': () => administration.webhooks(),
  'admin.createWebhook': ({ url, description, eventTypes }) =>
    administration.createWebhook(url, description, eventTypes),
  'admin.deleteWebhook': ({ webhookId }) => administration.deleteWebhook(webhookId),
  'admin.testWebhook': ({ webhookId }) => administration.testWebhook(webhookId),
  'admin.enableWebhook': ({ webhookId }) => administration.enableWebhook(webhookId),
  'admin.deliveries': ({ webhookId }) => administration.deliveries(webhookId),
  'admin.apiKeys': () => administration.apiKeys(),
  'admin.revokeApiKey': ({ keyId }) => administration.revokeApiKey(keyId),
});
