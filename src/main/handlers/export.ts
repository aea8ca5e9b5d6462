import type { EXPORT_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type ExportContext = Pick<CoreContext, 'exports'>;

export const exportHandlers = ({
  exports,
}: ExportContext): RpcHandlers<typeof EXPORT_CHANNELS> => ({
  'export.chooseFolder': () => exports.chooseFolder(),
  'export.useFolder': ({ path }) => exports.useFolder(path),
  'export.run': (request) => exports.run(request),
  'export.cancel': ({ exportId }) => {
    exports.cancel(exportId);
    return null;
  },
  'export.openFolder': async ({ exportId }) => {
    await exports.openFolder(exportId);
    return null;
  },
  'export.unfinished': () => exports.unfinished(),
  'export.resume': ({ exportId, journalId }) => exports.resume(exportId, journalId),
  'export.discard': async ({ journalId }) => {
    await exports.discard(journalId);
    return null;
  },
});
