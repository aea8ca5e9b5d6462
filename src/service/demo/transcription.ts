import type { Random } from '../random';
import { patientsNamedIn } from './dialogue';

/**
 * What speech recognition does to a pet's name, now and then: heard as an ordinary word (lower
 * case), or a letter off ("Peper", "Tedy", "Barny"). The demo's hub transcripts carry these slips
 * so the suggested patient is tried on what a real transcript gives (the audio says the name
 * right; the words are the recognizer's).
 */
const LOWER_CASE_CHANCE = 0.2;
const LETTER_OFF_CHANCE = 0.15;

/** The name one letter off, as a recognizer mishears it. */
export function letterOff(name: string): string {
  const doubled = /(\w)\1/.exec(name);
  if (doubled) return name.slice(0, doubled.index) + name.slice(doubled.index + 1);
  if (/ey$/.test(name)) return `${name.slice(0, -2)}y`;
  if (/y$/.test(name)) return `${name.slice(0, -1)}i`;
  return `${name.slice(0, -2)}${name.at(-1)}${name.at(-2)}`;
}

/** A line of the dialogue as the recognizer wrote it. */
export function misheard(text: string, random: Random): string {
  let heard = text;
  for (const name of patientsNamedIn(text)) {
    const roll = random.next();
    const slip =
      roll < LOWER_CASE_CHANCE
        ? name.toLowerCase()
        : roll < LOWER_CASE_CHANCE + LETTER_OFF_CHANCE
          ? letterOff(name)
          : name;
    heard = heard.replace(new RegExp(`\\b${name}\\b`, 'g'), slip);
  }
  return heard;
}
