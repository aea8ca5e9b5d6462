import type { AccountSummary } from '../../shared/ipc';
import { diagnoseConversations } from '../accounts/diagnostics';
import type { CoreContext } from '../context';
import { AppError } from '../errors';
import type { RpcHandlers } from '../rpc';

type AccountChannels =
  | 'accounts.list'
  | 'accounts.add'
  | 'accounts.remove'
  | 'accounts.activate'
  | 'accounts.openDemo'
  | 'accounts.diagnose'
  | 'identity.me';

export function accountHandlers({
  accounts,
  demo,
  emit,
  withService,
}: CoreContext): Pick<RpcHandlers, AccountChannels> {
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
      withService((service) =>
        diagnoseConversations({
          me: () => service.me(),
          devices: (organizationId) => service.devices(organizationId),
          firstConversations: () => service.firstConversations(),
        }),
      ),
    'identity.me': async () => {
      const identity = await withService((service) => service.me());
      accounts.remember(accounts.active().account.id, identity);
      return identity;
    },
  };
}
