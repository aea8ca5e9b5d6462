import type { SPEAKER_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type SpeakerContext = Pick<CoreContext, 'speakerNames'>;

/** Speaker names: a record's names (carried over to a new version), saving, suggestions, cards. */
export const speakerHandlers = ({
  speakerNames,
}: SpeakerContext): RpcHandlers<typeof SPEAKER_CHANNELS> => ({
  'speakers.get': ({ labelId }) => speakerNames.get(labelId),
  'speakers.save': (input) => speakerNames.save(input),
  'speakers.dismissNotice': ({ labelId, versionKey }) =>
    speakerNames.dismissNotice(labelId, versionKey),
  'speakers.known': ({ search, limit }) => speakerNames.known(search, limit),
  'speakers.of': ({ labelIds }) => speakerNames.spokenBy(labelIds),
});
