import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Label } from '../../shared/api';
import type { LabelAudioRow } from '../db/label-store';
import type { ClipBank } from './clip-bank';
import { renderRecipe, type AudioRecipe } from './recipe';

const EXTENSIONS: Record<LabelAudioRow['content_type'], string> = {
  'audio/wav': 'wav',
  'audio/mp4': 'm4a',
};

/** Opens bytes [start, end] of a label's stored audio. */
export function openLabelAudio(
  audio: LabelAudioRow,
  clips: ClipBank,
  resourcesDir: string,
  start: number,
  end: number,
): Readable {
  if (audio.source_kind === 'recipe')
    return renderRecipe(clips, JSON.parse(audio.source) as AudioRecipe, start, end);
  return createReadStream(join(resourcesDir, audio.source), { start, end });
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Content-Disposition naming the file after patient, local start time and record type,
 * e.g. `attachment; filename="Maple 2026-11-19 1042 ClinicConversation.wav"; filename*=UTF-8''...`.
 */
export function contentDisposition(
  label: Label,
  contentType: LabelAudioRow['content_type'],
): string {
  const start = new Date(label.fromTime);
  const when = `${start.getFullYear()}-${pad(start.getMonth() + 1)}-${pad(start.getDate())} ${pad(start.getHours())}${pad(start.getMinutes())}`;
  const name = `${label.patient?.name ?? 'Unassigned'} ${when} ${label.type}.${EXTENSIONS[contentType]}`;
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
