import type {
  EarmarkApi,
  IpcError,
  KnownSpeaker,
  RecordSpeakers,
  VersionSpeakers,
} from '../../../shared/ipc';
import {
  EMPTY_OVERLAY,
  nameWithRole,
  type LineMove,
  type SpeakerName,
  type SpeakerOverlay,
  type SpeakerRole,
} from '../../../shared/speakers/overlay';

/** Names used before, asked for while a name is typed. */
const KNOWN_LIMIT = 8;
/** The longest text searched for among them (the channel's limit). */
const MAX_SEARCH = 200;

/** A change that can be undone: the version's names and moves before it, and what it did. */
interface Change {
  versionKey: string;
  before: SpeakerOverlay;
  /** What the change did, in words ("Named Speaker 1 “Dr Marsh”."). */
  said: string;
}

/** Which line's speaker is being named or changed: the editor is open for it. */
export interface SpeakerEdit {
  versionKey: string;
  /** The line the user chose (its position in the version). */
  line: number;
  /** The raw label the line is said by now (moves applied); null for a line with no speaker. */
  label: string | null;
}

const overlayOf = (version: VersionSpeakers | undefined): SpeakerOverlay =>
  version ? { names: version.names, moves: version.moves } : EMPTY_OVERLAY;

/**
 * A record's speaker names (the overlay main keeps in the account's cache, offline too): naming a
 * speaker for every line of a transcript version, moving one line to another speaker, Undo of
 * each change this session (the version's names before it are saved back), the carry-over notice
 * of a new version, and the names used before on this computer for suggestions.
 */
export class SpeakerNamesStore {
  speakers = $state.raw<RecordSpeakers | null>(null);
  loadError = $state.raw<IpcError | null>(null);
  saveError = $state.raw<IpcError | null>(null);
  saving = $state(false);
  /** What the last change did, for a polite status (with Undo beside it). */
  said = $state<string | null>(null);
  /** The line whose speaker the editor is open for. */
  editing = $state.raw<SpeakerEdit | null>(null);
  known = $state.raw<KnownSpeaker[]>([]);
  private undoStack = $state.raw<Change[]>([]);
  private labelId: string | null = null;
  private request = 0;
  private knownRequest = 0;

  constructor(private readonly api: Pick<EarmarkApi, 'invoke'>) {}

  get canUndo(): boolean {
    return this.undoStack.length > 0 && !this.saving;
  }

  /** The record's names; a new version of its transcript gets what carries over first. */
  async load(labelId: string): Promise<void> {
    if (labelId !== this.labelId) {
      this.speakers = null;
      this.undoStack = [];
      this.said = null;
      this.editing = null;
    }
    this.labelId = labelId;
    const mine = ++this.request;
    const result = await this.api.invoke('speakers.get', { labelId });
    if (mine !== this.request) return; // another record, or a newer read
    this.loadError = result.ok ? null : result.error;
    if (result.ok) this.speakers = result.value;
  }

  /** The names of a transcript version (none when it has none). */
  overlay(versionKey: string | null | undefined): SpeakerOverlay {
    return overlayOf(this.speakers?.versions.find((v) => v.versionKey === versionKey));
  }

  /** The stored names of the record's current version, with its carry-over notice. */
  get current(): VersionSpeakers | undefined {
    const key = this.speakers?.currentVersionKey;
    return this.speakers?.versions.find((v) => v.versionKey === key);
  }

  /** Opens the editor for a line's speaker. */
  edit(edit: SpeakerEdit): void {
    this.editing = edit;
    this.saveError = null;
    void this.searchKnown('');
  }

  close(): void {
    this.editing = null;
  }

  /** Names used before on this computer that contain `text`. */
  async searchKnown(text: string): Promise<void> {
    const mine = ++this.knownRequest;
    const result = await this.api.invoke('speakers.known', {
      search: text.trim().slice(0, MAX_SEARCH),
      limit: KNOWN_LIMIT,
    });
    if (mine !== this.knownRequest) return;
    this.known = result.ok ? result.value : [];
  }

  /**
   * Names `label` for every line of the version (an empty name takes the name away). True when
   * it was saved.
   */
  name(
    versionKey: string,
    label: string,
    name: string,
    role: SpeakerRole | null,
  ): Promise<boolean> {
    const before = this.overlay(versionKey);
    const trimmed = name.trim();
    const others = before.names.filter((entry) => entry.label !== label);
    const names: SpeakerName[] =
      trimmed === '' ? others : [...others, { label, name: trimmed, role }];
    const said =
      trimmed === ''
        ? `${label} is no longer named.`
        : `Named ${label} “${nameWithRole({ name: trimmed, role })}”.`;
    return this.change(versionKey, { names, moves: before.moves }, said);
  }

  /**
   * Moves one line to another speaker of the version; `label` null (or the line's own label, as
   * transcribed) gives it back to the speaker the transcript has.
   */
  moveLine(
    versionKey: string,
    line: number,
    label: string | null,
    shownAs: string,
  ): Promise<boolean> {
    const before = this.overlay(versionKey);
    const others = before.moves.filter((move) => move.line !== line);
    const moves: LineMove[] = label === null ? others : [...others, { line, label }];
    return this.change(
      versionKey,
      { names: before.names, moves },
      label === null ? 'The line is back with its speaker.' : `The line is now ${shownAs}’s.`,
    );
  }

  /** Puts back the names as they were before the last change. */
  async undo(): Promise<boolean> {
    const last = this.undoStack.at(-1);
    if (!last || this.saving) return false;
    const saved = await this.save(last.versionKey, last.before);
    if (saved) {
      this.undoStack = this.undoStack.slice(0, -1);
      this.said = `Undone: ${last.said.charAt(0).toLowerCase()}${last.said.slice(1)}`;
    }
    return saved;
  }

  /** The carry-over notice of the current version has been read. */
  async dismissNotice(): Promise<void> {
    const key = this.speakers?.currentVersionKey;
    if (!this.labelId || !key) return;
    const result = await this.api.invoke('speakers.dismissNotice', {
      labelId: this.labelId,
      versionKey: key,
    });
    if (result.ok) this.speakers = result.value;
    else this.saveError = result.error;
  }

  private async change(versionKey: string, next: SpeakerOverlay, said: string): Promise<boolean> {
    const before = this.overlay(versionKey);
    if (this.saving) return false;
    const saved = await this.save(versionKey, next);
    if (saved) {
      this.undoStack = [...this.undoStack, { versionKey, before, said }];
      this.said = said;
      this.editing = null;
    }
    return saved;
  }

  private async save(versionKey: string, overlay: SpeakerOverlay): Promise<boolean> {
    const labelId = this.labelId;
    if (!labelId) return false;
    this.saving = true;
    this.saveError = null;
    const result = await this.api.invoke('speakers.save', {
      labelId,
      versionKey,
      names: [...overlay.names],
      moves: [...overlay.moves],
    });
    this.saving = false;
    if (labelId !== this.labelId) return false;
    if (!result.ok) {
      this.saveError = result.error;
      return false;
    }
    this.speakers = result.value;
    return true;
  }
}
