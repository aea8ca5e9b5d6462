import type { REVIEW_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type ReviewContext = Pick<CoreContext, 'review' | 'signOffs' | 'patientSuggestions'>;

export const reviewHandlers = ({
  review,
  signOffs,
  patientSuggestions,
}: ReviewContext): RpcHandlers<typeof REVIEW_CHANNELS> => ({
  'review.list': (input) => review.list(input),
  'review.count': () => review.count(),
  'review.mark': (input) => review.mark(input),
  'review.record': ({ labelId }) => review.record(labelId),
  'review.signOff': ({ labelId }) => signOffs.signOff(labelId),
  'review.suggestions': ({ labelId }) => patientSuggestions.suggest(labelId),
  'review.settings': () => review.settings(),
  'review.saveSettings': (patch) => review.saveSettings(patch),
});
