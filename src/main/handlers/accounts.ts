import type { ACCOUNT_CHANNELS, AccountSummary } from '../../shared/ipc';
import { diagnoseConversations } from '../accounts/diagnostics';
import type { CoreContext } from '../context';
import { AppError } from '../errors';
import type { RpcHandlers } from '../rpc';

export type AccountContext = Pick<CoreContext, 'accounts' | 'demo' | 'emit' | 'service'>;

export function accountHandlers({
  accounts,
  demo,
  emit,
  service,
}: AccountContext): RpcHandlers<typeof ACCOUNT_CHANNELS> {
  const changed = (list: AccountSummary[]) => {
    emit('accounts.changed', list);
    return list;
  };
  return {
    'accounts.list': () => accounts.list(),
    'accounts.add': async (input) => {
      const added = await accounts.add(input);
      changed(accounts.list());
      return added;
    },
    'accounts.remove': ({ accountId }) => changed(accounts.remove(accountId)),
    'accounts.activate': ({ accountId }) => changed(accounts.activate(accountId)),
    'accounts.openDemo': async () => {
      const { baseUrl, apiKey } = await demo.start();
      let added: AccountSummary;
      try {
        added = await accounts.add({ baseUrl, apiKey, demo: true });
      } catch (error) {
        // The demo's key is a local sandbox key: without a keychain, memory will do.
        if (!(error instanceof AppError && error.kind === 'keychain_unavailable')) throw error;
        added = await accounts.add({ baseUrl, apiKey, demo: true, sessionOnly: true });
      }
      changed(accounts.list());
      return added;
    },
    'accounts.diagnose': () =>
      service.call((client) =>
        diagnoseConversations({
          me: () => client.me(),
          devices: (organizationId) => client.devices(organizationId),
          firstConversations: () => client.firstConversations(),
        }),
      ),
    'identity.me': async () => {
      const identity = await service.call((client) => client.me());
      accounts.remember(accounts.active().account.id, identity);
      return identity;
    },
  };
}
