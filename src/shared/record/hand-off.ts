import { escapeHtml, noteHtml, notePlainText, type ParsedNote } from './soap';

/**
 * "Copy for the practice system": what a vet pastes into the practice-management system after a
 * consult — who, when, what kind of record, then the clinical note with its section headings.
 * Plain text for any field, and HTML (headings and paragraphs, every text escaped) for a rich
 * paste.
 */
export interface HandOff {
  patient: string | null;
  fromMs: number;
  toMs: number;
  timeZone: string;
  /** The record's kind in plain words ("Ambient hub recording"). */
  recordKind: string;
  note: ParsedNote;
  /** Who spoke, named ("Dr Marsh (vet), Mrs Patel (owner)"); left out when empty. */
  speakers?: string;
  locale?: string;
}

function handOffWhen({ fromMs, toMs, timeZone, locale }: HandOff): string {
  const day = new Intl.DateTimeFormat(locale, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone,
  });
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone });
  const sameDay = day.format(fromMs) === day.format(toMs);
  return sameDay
    ? `${day.format(fromMs)}, ${time.format(fromMs)}–${time.format(toMs)} (${timeZone})`
    : `${day.format(fromMs)}, ${time.format(fromMs)} – ${day.format(toMs)}, ${time.format(toMs)} (${timeZone})`;
}

function header(handOff: HandOff): [string, string][] {
  return [
    ['Patient', handOff.patient ?? 'Not assigned'],
    ['Date', handOffWhen(handOff)],
    ['Record', handOff.recordKind],
    ...(handOff.speakers ? [['Speakers', handOff.speakers] as [string, string]] : []),
  ];
}

export function handOffText(handOff: HandOff): string {
  const lines = header(handOff).map(([name, value]) => `${name}: ${value}`);
  return `${lines.join('\n')}\n\n${notePlainText(handOff.note)}\n`;
}

export function handOffHtml(handOff: HandOff): string {
  const facts = header(handOff)
    .map(([name, value]) => `<strong>${escapeHtml(name)}:</strong> ${escapeHtml(value)}`)
    .join('<br>');
  return `<p>${facts}</p>${noteHtml(handOff.note)}`;
}
