/**
 * A row of hub_minutes: what HubStore stores and reads, and what GeneratedMinutes computes for the
 * scale seed's hospital (its own module, so the store and the generator need not import each
 * other).
 */
export interface MinuteRow {
  minute_ms: number;
  speech_ms: number;
  transcript: string;
  diarized: string;
  clips: string;
  audio_ok: number;
}
