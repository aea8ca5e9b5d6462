import type { ACCOUNT_CHANNELS, AccountSummary } from '../../shared/ipc';
import { diagnoseConversations } from '../accounts/diagnostics';
import { openDemoAccount } from '../accounts/demo-account';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type AccountContext = Pick<
  CoreContext,
  'accounts' | 'demo' | 'emit' | 'service' | 'forgetAccountData'
>;

export function accountHandlers({
  accounts,
  demo,
  emit,
  service,
  forgetAccountData,
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
    'accounts.remove': async ({ accountId }) => {
      const list = accounts.remove(accountId);
      changed(list);
      await forgetAccountData(accountId);
      accounts.assertKeyDeleted(accountId);
      return list;
    },
    'accounts.activate': ({ accountId }) => changed(accounts.activate(accountId)),
    'accounts.openDemo': async () => {
      const added = await openDemoAccount(accounts, demo);
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
