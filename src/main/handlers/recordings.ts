import type { RECORDING_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type RecordingContext = Pick<CoreContext, 'recordings' | 'timedTranscripts'>;

/** Recordings: one, the list (a first paint may ask the cache alone), patients, assignment. */
export const recordingHandlers = ({
  recordings,
  timedTranscripts,
}: RecordingContext): RpcHandlers<typeof RECORDING_CHANNELS> => ({
  'labels.get': ({ labelId }) => recordings.get(labelId),
  'labels.transcriptLines': async ({ labelId }) =>
    timedTranscripts.of((await recordings.get(labelId)).value),
  'labels.list': ({ source, ...query }) => recordings.list(query, source),
  'labels.patients': ({ search, limit }) => recordings.patients(search, limit),
  'labels.assign': ({ labelId, patientId }) => recordings.assign(labelId, patientId),
});
