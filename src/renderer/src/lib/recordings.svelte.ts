import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { Label, RecordingOrder } from '../../../shared/api';
import { isCacheOnlyOrder } from '../../../shared/api/values';
import type {
  ChannelInput,
  EarmarkApi,
  IpcError,
  IpcResult,
  LabelPage,
  ReadSource,
  Sourced,
} from '../../../shared/ipc';
import {
  DEFAULT_FILTERS,
  labelFilterOf,
  sortedBy,
  type FilterQuery,
  type RecordingFilters,
} from '../../../shared/label-filter';

/** Rows per labels.list call. */
export const PAGE_SIZE = 100;
/** Pages loading at once: the ones in view go first, pages scrolled past are never asked for. */
const PARALLEL_LOADS = 2;
/** Pages kept in memory (6,000 rows); the farthest from view are dropped and asked again later. */
const KEPT_PAGES = 60;

/**
 * How long a page's service request waits for the cache's answer to it: the cache answers first
 * (3 ms for a filtered page at a million records, alone), and then the service is asked. Asked
 * at once, the service's answer took the CPU the cache's read needed whenever the service was
 * near (its count at a million cost it 10 ms, the answer's checking and keeping more in main): a
 * filtered first page at 1M painted after 79–90 ms, against 58–61 asked in turn. A cache slower
 * than this (opening, say) holds the service back no longer.
 */
export const CACHE_HEAD_START_MS = 100;

/** Pause after the last keystroke in the patient box before the list follows it. */
const PATIENT_TYPING_PAUSE_MS = 300;

/** A User Timing measure per page answer, from its request (bench/list.bench.ts reads them). */
const PAGE_MEASURE = 'earmark:recordings-page';

/** The same recording with the same facts in every column of the list. */
const sameRow = (a: Label, b: Label): boolean =>
  a.id === b.id &&
  a.type === b.type &&
  a.fromTime === b.fromTime &&
  a.toTime === b.toTime &&
  a.patient?.id === b.patient?.id &&
  a.patient?.name === b.patient?.name &&
  a.friendlyName === b.friendlyName &&
  a.deviceSerial === b.deviceSerial;

/** `answered`, or `ms` passed, whichever comes first. */
async function atMost(answered: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([answered, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export interface PageError {
  page: number;
  error: IpcError;
}

/**
 * The Recordings list's state, at module level so that Back from a recording returns to the same
 * filters, rows, selection and scroll position; another account starts over.
 *
 * Rows arrive a page at a time, by offset, as they come into view: each page is asked of the
 * cache first (an instant answer to paint), then of the service, whose answer replaces it (main
 * answers from the cache when the service is unreachable; `source` says which it was).
 */
export class RecordingsStore {
  accountId: string | null = null;
  filters = $state.raw<RecordingFilters>(DEFAULT_FILTERS);
  /** The patient box as typed; the filter follows it once typing pauses. */
  patientText = $state('');
  readonly query: FilterQuery = $derived(labelFilterOf(this.filters));
  /**
   * The order is one only this computer's copy can list in (Duration): the rows come from the
   * cache, online too, and that is not being offline.
   */
  readonly orderedHere = $derived(isCacheOnlyOrder(this.filters.sort));
  /** The number of matching recordings; null until the first answer. */
  total = $state<number | null>(null);
  /** Where the total and the latest rows came from. */
  source = $state<ReadSource>('service');
  /** When the cache last completed a sync (for a cached answer). */
  syncedAt = $state<string | null>(null);
  /** The rows are the cache's because the service could not be asked: offline, say so. */
  get offlineCopy(): boolean {
    return this.connection.offline || (this.source === 'cache' && !this.orderedHere);
  }
  /** Loaded pages by number (reactive per page: a row redraws only when its page changes). */
  readonly pages = new SvelteMap<number, readonly Label[]>();
  error = $state<PageError | null>(null);
  readonly selected = new SvelteSet<string>();
  /** The row the keyboard is on. */
  activeIndex = $state(0);
  scrollTop = 0;
  private generation = 0;
  /** The pages in view, nearest first. */
  private wanted: number[] = [0];
  // Bookkeeping, never drawn: plain sets, not reactive ones.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  private loading = new Set<number>();
  /** Pages the service has answered for (or the cache alone, offline). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  private settled = new Set<number>();
  private patientTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: EarmarkApi,
    /** Whether main says the service cannot be reached. */
    private readonly connection: { readonly offline: boolean },
  ) {}

  /** Called by each new screen: the same account keeps what it had, another starts over. */
  attach(accountId: string): void {
    if (accountId === this.accountId) {
      // Back on the screen: ask again for what the service may have changed meanwhile.
      this.settled.clear();
      this.pump();
      return;
    }
    this.accountId = accountId;
    this.filters = DEFAULT_FILTERS;
    this.patientText = '';
    this.selected.clear();
    this.restart();
  }

  setFilters(filters: RecordingFilters): void {
    this.filters = filters;
    this.restart();
  }

  /** Each keystroke in the patient box: the list follows once typing pauses. */
  typePatient(text: string): void {
    this.patientText = text;
    clearTimeout(this.patientTimer);
    this.patientTimer = setTimeout(() => {
      if (text.trim() !== this.filters.patient.trim())
        this.setFilters({ ...this.filters, patient: text });
    }, PATIENT_TYPING_PAUSE_MS);
  }

  /** Every filter off (the patient box emptied); the order stays. */
  clearFilters(): void {
    clearTimeout(this.patientTimer);
    this.patientText = '';
    this.setFilters({
      ...DEFAULT_FILTERS,
      sort: this.filters.sort,
      descending: this.filters.descending,
    });
  }

  /** The screen goes: a patient still being typed is not applied (the box shows the filter). */
  detach(): void {
    clearTimeout(this.patientTimer);
    this.patientText = this.filters.patient;
  }

  /** How the list is sorted by a column: 'none' for a column it is not sorted by. */
  sortOf(property: RecordingOrder): 'ascending' | 'descending' | 'none' {
    if (this.filters.sort !== property) return 'none';
    return this.filters.descending ? 'descending' : 'ascending';
  }

  /** Sorts by a column: its own turns the order round, another starts with its natural one. */
  sortBy(property: RecordingOrder): void {
    this.setFilters(sortedBy(this.filters, property));
  }

  /** Drops what was loaded (and answers still on their way) and starts again at the top. */
  restart(): void {
    this.generation++;
    this.pages.clear();
    this.total = null;
    this.source = 'service';
    this.error = null;
    this.loading.clear();
    this.settled.clear();
    this.activeIndex = 0;
    this.scrollTop = 0;
    this.wanted = [0];
    this.pump();
  }

  /** The pages now in view (the list asks as it scrolls). */
  want(pages: number[]): void {
    this.wanted = pages;
    this.pump();
  }

  /** Asks for the page that failed again. */
  retry(): void {
    const failed = this.error?.page;
    this.error = null;
    if (failed !== undefined) this.settled.delete(failed);
    this.pump();
  }

  rowAt(index: number): Label | undefined {
    return this.pages.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE];
  }

  toggle(id: string): void {
    if (!this.selected.delete(id)) this.selected.add(id);
  }

  clearSelection(): void {
    this.selected.clear();
  }

  private pump(): void {
    if (!this.query.ok || this.error) return;
    for (const page of this.wanted) {
      if (this.loading.size >= PARALLEL_LOADS) return;
      if (!this.loading.has(page) && !this.settled.has(page)) void this.load(page);
    }
  }

  private async load(page: number): Promise<void> {
    if (!this.query.ok) return;
    const generation = this.generation;
    const current = () => generation === this.generation;
    const query = { ...this.query.filter, limit: PAGE_SIZE, offset: page * PAGE_SIZE };
    this.loading.add(page);
    // The service's rows are in: a cached answer arriving later is older news. (A service that
    // refused does not count: its error must not drop the cache's rows, whichever came first.)
    let answered = false;
    // The rows of a cache that has not completed a sync yet: shown only if the service cannot
    // answer (its first sync is still filling it: its count and rows are a part of the list).
    let partial: Sourced<LabelPage> | undefined;
    const showPartial = () => {
      if (partial && !this.pages.has(page)) this.store(page, partial, 'cache');
    };
    try {
      // The cache is asked first and paints; the service is asked once it answered (or after
      // CACHE_HEAD_START_MS), and its answer replaces the cache's.
      const cached = this.pages.has(page)
        ? Promise.resolve()
        : this.ask(query, 'cache', page).then((answer) => {
            // An empty cache says nothing yet (not synced, or offline answers follow): wait
            // for the service rather than flash "no recordings".
            if (!current() || answered || !answer.ok || answer.value.value.items.length === 0)
              return;
            if (answer.value.fetchedAt === null) partial = answer.value;
            else this.store(page, answer.value, 'cache');
          });
      await atMost(cached, CACHE_HEAD_START_MS);
      if (!current()) return;
      // Offline, further pages come from the cache alone: asking the service for each would
      // only wait out its retries. A new filter or a visit to the screen asks it again.
      if (page > 0 && this.connection.offline) {
        await cached;
        if (current()) showPartial();
        if (current() && this.pages.has(page)) {
          this.settled.add(page);
          return;
        }
      }
      const fresh = await this.ask(query, 'service', page);
      if (!current()) return;
      if (fresh.ok) {
        answered = true;
        this.store(page, fresh.value, 'service');
        this.settled.add(page);
        return;
      }
      await cached;
      if (!current()) return;
      showPartial();
      if (this.pages.has(page)) {
        // Keep the cached rows, shown as cached.
        this.settled.add(page);
        this.source = 'cache';
      } else {
        this.error = { page, error: fresh.error };
      }
    } finally {
      if (current()) {
        this.loading.delete(page);
        this.pump();
      }
    }
  }

  private async ask(
    query: ChannelInput<'labels.list'>,
    source: ReadSource,
    page: number,
  ): Promise<IpcResult<Sourced<LabelPage>>> {
    const start = performance.now();
    const result = await this.api.invoke('labels.list', { ...query, source });
    if (result.ok) {
      performance.measure(PAGE_MEASURE, {
        start,
        detail: { page, asked: source, source: result.value.source },
      });
    }
    return result;
  }

  private store(
    page: number,
    { value: answer, ...from }: Sourced<LabelPage>,
    asked: ReadSource,
  ): void {
    // The total follows the service's answers (which are the cache's when it is unreachable); a
    // cache-first answer only sets it until then.
    if (asked === 'service' || this.total === null) this.total = answer.total;
    if (asked === 'service') {
      this.source = from.source;
      // A cached page's fetchedAt is the cache's last completed sync.
      this.syncedAt = from.source === 'cache' ? from.fetchedAt : null;
    }
    // The service's answer usually repeats the cache's rows: keep those objects, so the rows on
    // screen are not drawn again (a whole page of rows at once would cost a frame while scrolling).
    const shown = this.pages.get(page);
    const items = answer.items.map((label, i) =>
      shown?.[i] && sameRow(shown[i], label) ? shown[i] : label,
    );
    if (!shown || items.length !== shown.length || items.some((label, i) => label !== shown[i]))
      this.pages.set(page, items);
    // Keep memory bounded on a long list: drop the pages farthest from this one.
    const surplus = [...this.pages.keys()]
      .filter((p) => !this.wanted.includes(p))
      .sort((a, b) => Math.abs(b - page) - Math.abs(a - page))
      .slice(0, Math.max(0, this.pages.size - KEPT_PAGES));
    for (const dropped of surplus) {
      this.pages.delete(dropped);
      this.settled.delete(dropped);
    }
  }
}
