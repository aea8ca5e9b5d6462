import type { EarmarkApi } from '../../../shared/ipc';
import { nameWithRole, type SpeakerName } from '../../../shared/speakers/overlay';

/** The most records `speakers.of` takes at once (its input's bound). */
const MAX_RECORDS = 500;

/**
 * Who spoke in a list's records, where the speakers are named on this computer (speakers.of):
 * the timeline's bands and Review's items show it on their cards.
 */
export class SpokenByStore {
  private names = $state.raw<Readonly<Record<string, SpeakerName[]>>>({});
  private asked = 0;

  constructor(private readonly api: EarmarkApi) {}

  /** Reads who spoke in these records (the first 500), replacing what was known; the last call wins. */
  async load(labelIds: readonly string[]): Promise<void> {
    const mine = ++this.asked;
    if (labelIds.length === 0) {
      this.names = {};
      return;
    }
    const result = await this.api.invoke('speakers.of', {
      labelIds: labelIds.slice(0, MAX_RECORDS),
    });
    if (mine !== this.asked || !result.ok) return;
    this.names = Object.fromEntries(
      result.value.map(({ labelId, speakers }) => [labelId, speakers]),
    );
  }

  /** "Dr Marsh (vet), Mrs Patel (owner)" for a record whose speakers are named; else null. */
  of(labelId: string | null | undefined): string | null {
    const speakers = labelId ? this.names[labelId] : undefined;
    return speakers?.length ? speakers.map(nameWithRole).join(', ') : null;
  }
}
