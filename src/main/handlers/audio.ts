import type { AUDIO_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type AudioContext = Pick<CoreContext, 'audio'>;

export const audioHandlers = ({ audio }: AudioContext): RpcHandlers<typeof AUDIO_CHANNELS> => ({
  'audio.prepare': ({ labelId }) => audio.prepare(labelId),
  'audio.waveform': ({ labelId }) => audio.waveform(labelId),
});
