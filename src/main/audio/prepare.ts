import { type AudioProgress, type PreparedAudio, type Waveform } from '../../shared/ipc';
import type { ActiveService } from '../connection/active-service';
import { SealedDataError } from '../at-rest/account-key';
import type { AudioCache, CachedAudio, CachedOrStreaming } from './audio-cache';
import type { AudioSource, AudioStream } from './audio-stream';
import { Readable } from 'node:stream';
import { AppError } from '../base/errors';
import { AudioError, fileErrorOf, isAudioError } from './errors';
import {
  MEDIA_HEADERS,
  serveMedia,
  serveStreamingMedia,
  type MediaRequest,
  type MediaResponse,
} from './media';
import { waveformData } from './peaks';

/** Points on the waveform handed to the renderer: enough for a wide window, small over IPC. */
const WAVEFORM_POINTS = 4000;

export interface AudioPreparationDeps {
  audioCache(): Promise<AudioCache>;
  service: Pick<ActiveService, 'call'>;
  /** The active account's id: a stream fills only for the account that opened it. */
  accountId(): string;
  /** The URL the shell serves a label's audio at (page-relative). */
  mediaUrl(labelId: string): string;
  progress(progress: AudioProgress): void;
}

/**
 * A label's audio made ready to play, as soon as its first bytes are there: the account's audio
 * cache streams it (audio-stream.ts) while the player reads, and the shells serve it at
 * `media/<labelId>` with Range from what is on disk, the rest fetched as it is asked for.
 */
export class AudioPreparation {
  constructor(private readonly deps: AudioPreparationDeps) {}

  /**
   * The label's audio, its length, its waveform as far as it is known, and what is on disk.
   * Whole in the cache: at once. Otherwise once its first bytes are (a WAV's header gives the
   * duration); it keeps filling, with audio.progress events, while it plays.
   */
  async prepare(labelId: string): Promise<PreparedAudio> {
    const found = await this.open(labelId);
    const base = { labelId, mediaUrl: this.deps.mediaUrl(labelId) };
    if (found.kind === 'whole') {
      const { audio } = found;
      return {
        ...base,
        contentType: audio.contentType,
        bytes: audio.bytes,
        waveform: await this.wholeWaveform(labelId, audio),
        buffered: [[0, audio.bytes]],
        complete: true,
      };
    }
    const { stream } = found;
    this.follow(stream);
    const facts = await stream.ready();
    const progress = stream.progress();
    return {
      ...base,
      contentType: facts.contentType,
      bytes: facts.total,
      waveform: await stream.waveform(WAVEFORM_POINTS),
      buffered: progress.ranges.map(([start, end]) => [start, end]),
      complete: false,
    };
  }

  /** The waveform as far as the bytes on disk tell it (a WAV streaming in), or the whole one. */
  async waveform(labelId: string): Promise<Waveform | null> {
    const found = await this.open(labelId);
    if (found.kind === 'streaming') return found.stream.waveform(WAVEFORM_POINTS);
    return this.wholeWaveform(labelId, found.audio);
  }

  /**
   * A cached recording's waveform from its peaks file. Peaks that fail their integrity check
   * take the recording out of the cache (it is fetched anew when played) and say so.
   */
  private async wholeWaveform(labelId: string, audio: CachedAudio): Promise<Waveform | null> {
    const cache = await this.deps.audioCache();
    try {
      const peaks = await cache.peaks(audio);
      return peaks && waveformData(peaks, WAVEFORM_POINTS);
    } catch (error) {
      throw await this.refused(cache, labelId, error);
    }
  }

  /** A cached file that failed its check: dropped from the cache, and the error that says so. */
  private async refused(cache: AudioCache, labelId: string, error: unknown): Promise<unknown> {
    const refusal = error instanceof SealedDataError ? fileErrorOf(error, labelId) : error;
    if (isAudioError(refusal, 'tampered')) await cache.remove(labelId).catch(() => undefined);
    return refusal;
  }

  /**
   * The shells' media route: the whole cached file, or the streaming one's bytes (waiting for
   * those not yet there). A label never opened, with the service unreachable, is a 404.
   */
  async media(request: MediaRequest, labelId: string): Promise<MediaResponse> {
    let found: CachedOrStreaming;
    try {
      found = await this.open(labelId);
    } catch (error) {
      // No account or key (removed while a player seeks), or its cached data locked: the player
      // gets the reason, as text.
      if (
        error instanceof AppError &&
        ['no_account', 'key_missing', 'cache_locked'].includes(error.kind)
      ) {
        return {
          status: 401,
          headers: { ...MEDIA_HEADERS, 'content-type': 'text/plain; charset=utf-8' },
          body: Readable.from([`${error.message}\n`]),
        };
      }
      return { status: 404, headers: { ...MEDIA_HEADERS }, body: null };
    }
    if (found.kind === 'whole') {
      const cache = await this.deps.audioCache();
      let media: MediaResponse;
      try {
        media = await serveMedia(request, cache.mediaFile(found.audio));
      } catch (error) {
        // Its first chunk failed its check: refused, never sent; fetched anew next time.
        const refusal = await this.refused(cache, labelId, error);
        if (!isAudioError(refusal, 'tampered')) throw refusal;
        return {
          status: 500,
          headers: { ...MEDIA_HEADERS, 'content-type': 'text/plain; charset=utf-8' },
          body: Readable.from([`${refusal.message}\n`]),
        };
      }
      return this.droppedIfRefused(cache, labelId, media);
    }
    return this.droppedIfRefused(
      await this.deps.audioCache(),
      labelId,
      await serveStreamingMedia(request, found.stream),
    );
  }

  /**
   * A chunk that fails its check after the answer began stops the body there (the player
   * errors, nothing of the chunk is sent); the cache drops the recording, to fetch it anew.
   */
  private droppedIfRefused(cache: AudioCache, labelId: string, media: MediaResponse) {
    media.body?.once('error', (error) => void this.refused(cache, labelId, error));
    return media;
  }

  /** Goes on filling, in the background, the recordings the account had partly cached. */
  async resumePartials(): Promise<void> {
    const cache = await this.deps.audioCache();
    cache.resumePartials(this.sourceFor(this.deps.accountId()));
  }

  private readonly followed = new WeakSet<AudioStream>();

  /** Tells the renderer how a stream fills (audio.progress), once per stream. */
  private follow(stream: AudioStream): void {
    if (this.followed.has(stream)) return;
    this.followed.add(stream);
    stream.onProgress(({ labelId, bytesDone, bytesTotal, ranges }) =>
      this.deps.progress({
        labelId,
        bytesDone,
        bytesTotal,
        buffered: ranges.map(([start, end]) => [start, end]),
      }),
    );
  }

  private async open(labelId: string): Promise<CachedOrStreaming> {
    const cache = await this.deps.audioCache();
    return cache.open(this.sourceFor(this.deps.accountId()), labelId);
  }

  /**
   * The service a stream fills from: the active account's, through `call` so the connection
   * status follows its answers; refused once another account is active (a stream never mixes
   * two clinics).
   */
  private sourceFor(accountId: string): () => Promise<AudioSource> {
    const { service } = this.deps;
    const source: AudioSource = {
      audio: (labelId, request) =>
        service.call((client) => client.api.labels.audio(labelId, request)),
      get: (labelId, options) => service.call((client) => client.api.labels.get(labelId, options)),
    };
    return async () => {
      if (this.deps.accountId() !== accountId) {
        throw new AudioError('cancelled', { detail: 'another account is active' });
      }
      return source;
    };
  }
}
