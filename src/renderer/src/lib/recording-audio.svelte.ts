import type {
  BufferedRanges,
  EarmarkApi,
  IpcError,
  PreparedAudio,
  Waveform,
} from '../../../shared/ipc';

/** How often the waveform is asked for again while the file fills. */
const WAVEFORM_REFRESH_MS = 1000;

/**
 * A recording's audio as main prepares it (the player's state and its IPC calls): main streams
 * the file into its cache and serves it from there; this follows how much is here
 * (`audio.progress`) and asks for the peaks of what is here again as it fills, at most once a
 * second. One instance per player; `open` again for another recording or another attempt.
 */
export class RecordingAudioStore {
  prepared = $state.raw<PreparedAudio | null>(null);
  error = $state.raw<IpcError | null>(null);
  progress = $state.raw<{ done: number; total: number | null } | null>(null);
  /** The byte ranges on this computer. */
  buffered = $state.raw<BufferedRanges>([]);
  /** Whether the whole file is here. */
  complete = $state(false);
  /** Main's peaks as far as the file is here (flat after). */
  waveform = $state.raw<Waveform | null>(null);

  private labelId: string | null = null;
  private waveformAskedAt = 0;
  private waveformAsking: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly api: EarmarkApi) {}

  /** The share of the file on this computer, 0 to 1. */
  get bufferedShare(): number {
    const bytes = this.prepared?.bytes ?? 0;
    return bytes > 0
      ? this.buffered.reduce((sum, [start, end]) => sum + end - start, 0) / bytes
      : 0;
  }

  /** Whether it failed because the service could not be reached (it can be tried again later). */
  get unreachable(): boolean {
    return this.error?.kind === 'offline' || this.error?.kind === 'timeout';
  }

  /** Prepares `labelId`'s audio and follows it; the function returned stops following. */
  open(labelId: string): () => void {
    this.labelId = labelId;
    this.prepared = null;
    this.error = null;
    this.progress = null;
    this.buffered = [];
    this.complete = false;
    this.waveform = null;
    const stop = this.api.on('audio.progress', (event) => {
      if (event.labelId !== labelId) return;
      this.progress = { done: event.bytesDone, total: event.bytesTotal };
      this.buffered = event.buffered;
      this.complete = event.bytesTotal !== null && event.bytesDone >= event.bytesTotal;
      if (this.prepared?.waveform) this.refreshWaveform(labelId);
    });
    void this.api.invoke('audio.prepare', { labelId }).then((result) => {
      if (this.labelId !== labelId) return;
      if (!result.ok) {
        this.error = result.error;
        return;
      }
      this.prepared = result.value;
      this.buffered = result.value.buffered;
      this.complete = result.value.complete;
      this.waveform = result.value.waveform;
    });
    return () => {
      stop();
      clearTimeout(this.waveformAsking);
      this.waveformAsking = undefined;
      if (this.labelId === labelId) this.labelId = null;
    };
  }

  private refreshWaveform(labelId: string): void {
    if (this.waveformAsking) return;
    const wait = Math.max(0, this.waveformAskedAt + WAVEFORM_REFRESH_MS - Date.now());
    this.waveformAsking = setTimeout(() => {
      this.waveformAsking = undefined;
      this.waveformAskedAt = Date.now();
      void this.api.invoke('audio.waveform', { labelId }).then((result) => {
        if (result.ok && result.value && this.labelId === labelId) this.waveform = result.value;
      });
    }, wait);
  }
}
