import type { RECORDING_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type RecordingContext = Pick<CoreContext, 'recordings' | 'timedTranscripts' | 'review'>;

/** Recordings: one, the list (a first paint may ask the cache alone), patients, assignment. */
export const recordingHandlers = ({
  recordings,
  timedTranscripts,
  review,
}: RecordingContext): RpcHandlers<typeof RECORDING_CHANNELS> => ({
  'labels.get': ({ labelId }) => recordings.get(labelId),
  'labels.transcriptLines': async ({ labelId }) =>
    timedTranscripts.of((await recordings.get(labelId)).value),
  'labels.list': ({ source, ...query }) => recordings.list(query, source),
  'labels.patients': ({ search, limit }) => recordings.patients(search, limit),
  'labels.assign': async ({ labelId, patientId }) => {
    const label = await recordings.assign(labelId, patientId);
    // A record that gets its patient is no longer "no patient yet" in the queue.
    void review.refresh().catch(() => undefined);
    return label;
  },
});
