import type { EarmarkApi, IpcError } from '../../../shared/ipc';
import type { SearchHit, SearchLabel } from '../../../shared/search';

/** A hit that belongs to a recording: in a transcript (current or past) or a patient's name. */
export type RecordingHit = Extract<SearchHit, { label: SearchLabel }>;

/** Pause after the last keystroke before searching. */
const TYPING_PAUSE_MS = 200;
/** Hits asked for: conversations' hits are left out here (they have their own screen). */
const LIMIT = 50;

const isRecordingHit = (hit: SearchHit): hit is RecordingHit => hit.kind !== 'conversation';

/**
 * The search box of the Recordings screen: full-text search over the cache (transcripts, past
 * transcript versions, patient names), so it works offline. Kept at module level, like the
 * list, so Back from a hit returns to the same results.
 */
export class RecordingSearchStore {
  accountId: string | null = null;
  text = $state('');
  /** The words the hits answer (null: no search yet for the current text). */
  searched = $state<string | null>(null);
  hits = $state.raw<RecordingHit[]>([]);
  /** The search had more hits than it asked for. */
  capped = $state(false);
  error = $state<IpcError | null>(null);
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;

  constructor(private readonly api: EarmarkApi) {}

  get active(): boolean {
    return this.text.trim() !== '';
  }

  attach(accountId: string): void {
    if (accountId === this.accountId) return;
    this.accountId = accountId;
    this.type('');
  }

  /** Each keystroke: search once typing pauses. */
  type(text: string): void {
    this.text = text;
    clearTimeout(this.timer);
    this.generation++;
    if (!this.active) {
      this.searched = null;
      this.hits = [];
      this.capped = false;
      this.error = null;
      return;
    }
    this.timer = setTimeout(() => void this.run(), TYPING_PAUSE_MS);
  }

  async run(): Promise<void> {
    const generation = ++this.generation;
    const query = this.text.trim();
    const result = await this.api.invoke('search', { query, limit: LIMIT });
    if (generation !== this.generation) return; // typed on meanwhile
    this.searched = query;
    this.error = result.ok ? null : result.error;
    this.hits = result.ok ? result.value.filter(isRecordingHit) : [];
    this.capped = result.ok && result.value.length === LIMIT;
  }
}
