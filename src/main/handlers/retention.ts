import type { RETENTION_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type RetentionContext = Pick<CoreContext, 'retention' | 'accounts' | 'emit'>;

export const retentionHandlers = ({
  retention,
  accounts,
  emit,
}: RetentionContext): RpcHandlers<typeof RETENTION_CHANNELS> => ({
  'retention.overview': () => retention.overview(),
  'retention.setSettings': async (settings) => {
    const overview = await retention.setSettings(settings);
    // The settings live with the account (accounts.json): its record changed.
    emit('accounts.changed', accounts.list());
    return overview;
  },
  'retention.removeNow': () => retention.removeNow(),
  'retention.removeEverything': () => retention.removeEverything(),
  'retention.keep': ({ labelId, keep }) => retention.keep(labelId, keep),
  'retention.isKept': ({ labelId }) => retention.isKept(labelId),
});
