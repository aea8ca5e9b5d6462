import type { Random } from '../random';
import { spokenLinesOf, type SpokenLine } from '../hub/simulator';
import { DIALOGUE_SCRIPTS, PATIENT_NAMES, type DialogueScript, type ScriptKind } from './dialogue';
import type { HospitalPatient } from './hospital-people';

/**
 * The scale seed's dialogue: the demo's bank recombined, so three years of a hospital read as
 * many different visits rather than 19 repeated ones. A visit starts from a script of its kind
 * and swaps some of its lines for the lines at the same point of other scripts of that kind;
 * the bank's pet names become the patient's, and the owner is named where a caller gives a
 * name. Each line keeps the bank's clip that speaks it (whose audio still says the bank's
 * name): the hub minutes and audio recipes are made of those clips.
 */

export interface Visit {
  kind: ScriptKind;
  /** The script the visit starts from: its reason and species. */
  base: DialogueScript;
  patient: HospitalPatient;
  lines: SpokenLine[];
}

/** A line of the base script is swapped for another script's with this chance. */
const SWAP_CHANCE = 0.3;

const SCRIPTS_BY_KIND = new Map<ScriptKind, DialogueScript[]>(
  (['consult', 'dictation', 'phone', 'button'] as const).map((kind) => [
    kind,
    DIALOGUE_SCRIPTS.filter((script) => script.kind === kind),
  ]),
);

const BANK_NAMES = new RegExp(`\\b(${PATIENT_NAMES.map((p) => p.name).join('|')})\\b`, 'g');

const scriptsOf = (kind: ScriptKind) => SCRIPTS_BY_KIND.get(kind)!;

/** A visit of `kind` about `patient`: a script of its species when there is one. */
export function recombinedVisit(random: Random, kind: ScriptKind, patient: HospitalPatient): Visit {
  const scripts = scriptsOf(kind);
  const sameSpecies = scripts.filter((script) => script.species === patient.species);
  const base = random.pick(sameSpecies.length > 0 ? sameSpecies : scripts);
  const others = scripts.filter((script) => script !== base);
  let ownerNamed = false;
  const lines = spokenLinesOf(base).map((spoken, index) => {
    let chosen = spoken;
    // The first line sets the scene; later ones may come from another visit of the same kind.
    if (index > 0 && others.length > 0 && random.chance(SWAP_CHANCE)) {
      const other = random.pick(others);
      const at = Math.min(
        other.lines.length - 1,
        Math.round((index * other.lines.length) / base.lines.length),
      );
      chosen = spokenLinesOf(other)[at]!;
    }
    let text = chosen.line.text.replace(BANK_NAMES, patient.petName);
    if (kind === 'phone' && chosen.line.speaker === 'Owner' && !ownerNamed) {
      text = `This is ${patient.owner}. ${text}`;
      ownerNamed = true;
    }
    return { clip: chosen.clip, line: { speaker: chosen.line.speaker, text } };
  });
  return { kind, base, patient, lines };
}

/** The visit as the service's transcript: one "Speaker: text" line per line spoken. */
export const transcriptOfVisit = (visit: Visit): string =>
  visit.lines.map(({ line }) => `${line.speaker}: ${line.text}`).join('\n');

/** Up to `count` lines of the visit spoken by `speakers`, from `from` on (a share of its length). */
function linesBy(visit: Visit, speakers: string[], from: number, count: number): string[] {
  const start = Math.floor(visit.lines.length * from);
  return visit.lines
    .slice(start)
    .filter(({ line }) => speakers.includes(line.speaker))
    .slice(0, count)
    .map(({ line }) => line.text);
}

/**
 * A SOAP note for the visit, written from what was said: the owner's account, the findings the
 * vet and nurse gave, the visit's reason and the vet's last words (plain text with S:/O:/A:/P:
 * headings, as the seed dialect sends it; the field dialect turns it into its JSON document).
 */
export function soapOfVisit(visit: Visit): string {
  const { patient, base } = visit;
  const history = linesBy(visit, ['Owner'], 0, 2);
  const findings = linesBy(visit, ['Nurse', 'Vet'], 0.35, 3);
  const plan = visit.lines
    .filter(({ line }) => line.speaker === 'Vet')
    .slice(-2)
    .map(({ line }) => line.text);
  return [
    `S: ${patient.petName} (${patient.species}), owner ${patient.owner}, presented for ${base.reason.toLowerCase()}. ${history.join(' ')}`.trim(),
    `O: ${findings.length > 0 ? findings.join(' ') : 'Bright, alert and responsive. Vital signs within normal limits.'}`,
    `A: ${base.reason}.`,
    `P: ${plan.length > 0 ? plan.join(' ') : 'Treatment and follow-up as agreed with the owner.'}`,
  ].join('\n');
}
