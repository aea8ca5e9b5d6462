import type { APP_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import { AppError } from '../base/errors';
import { parseExternalUrl } from '../base/external-url';
import type { RpcHandlers } from '../rpc';

export type AppContext = Pick<CoreContext, 'about' | 'shell' | 'service' | 'defaultExportFolder'>;

export const appHandlers = ({
  about,
  shell,
  service,
  defaultExportFolder,
}: AppContext): RpcHandlers<typeof APP_CHANNELS> => ({
  'app.info': () => ({
    version: about.version,
    shell: about.shell,
    platform: process.platform,
    // A shell with a folder dialog picks folders with it; otherwise the user types a path.
    folderChoice: shell.chooseFolder ? 'dialog' : 'path',
    defaultExportFolder: defaultExportFolder(),
  }),
  'app.connection': () => service.connection(),
  'app.openExternal': async ({ url }) => {
    if (!shell.openExternal) throw new AppError('unsupported', 'Links cannot be opened from here.');
    await shell.openExternal(parseExternalUrl(url));
    return null;
  },
});
