import type { SpokenLine } from '../record/spoken-lines';
import { alignLines } from './align';
import { type LineMove, type SpeakerName, type SpeakerOverlay } from './overlay';

/**
 * The carry-over rule: a newer transcript version of a record gets the names given on an older
 * one where they still fit, and only there — a name is never put on the wrong person.
 *
 * The two versions' lines are matched by their words (align.ts), and a speaker's share of the
 * lines found in both versions must still be theirs: a speaker of the older version has a
 * counterpart in the newer one when
 * - at least half of its lines are found in the newer version (else its words changed too much
 *   to tell, or it is gone),
 * - at least 80% of those found carry one label there (else the speaker was split in two),
 * - and at least 80% of that label's found lines were this speaker's (else two speakers were
 *   merged, and the name would name the other one too).
 * Lines only one version has (a speaker gone, lines added) move no one's share.
 * The counterpart's label is usually the same raw label; when the newer version numbers the
 * speakers differently ("Speaker 1" is now "Speaker 2"), the name follows the person's lines to
 * their new label — labels alone would put it on the wrong person. A name whose speaker has no
 * counterpart is dropped, with the reason.
 * A moved line follows its words to the newer version when both the line and the speaker it was
 * moved to are found there; a move the newer version already agrees with is no longer needed.
 */

/** Found lines a speaker needs (of its own) to be followed at all. */
const MIN_FOUND = 0.5;
/** The share of a speaker's found lines that must agree on one label, both ways. */
const SAME_SPEAKER = 0.8;

/** Why a name did not carry over. */
type DropReason = 'gone' | 'split' | 'merged' | 'changed';

/** A name put on the newer version: `label` is its label there, `from` the older one. */
export interface CarriedName extends SpeakerName {
  from: string;
}

/** A name left behind: `label` is the older version's; `into`, where its lines went. */
export interface DroppedName extends SpeakerName {
  reason: DropReason;
  into: string[];
}

export interface CarryOver {
  /** The newer version's overlay: what carried over. */
  overlay: SpeakerOverlay;
  carried: CarriedName[];
  dropped: DroppedName[];
  /** Moved lines that could not be placed in the newer version. */
  droppedMoves: number;
}

type Counterpart = { label: string } | { reason: DropReason; into: string[] };

/** Each older label's counterpart in the newer version, or why it has none. */
function counterparts(
  older: readonly SpokenLine[],
  newer: readonly SpokenLine[],
  pairs: readonly (number | null)[],
): Map<string, Counterpart> {
  const own = new Map<string, number>();
  for (const { speaker } of older) {
    if (speaker !== null) own.set(speaker, (own.get(speaker) ?? 0) + 1);
  }
  // For each newer label, how many of its lines came from each older label.
  const cameFrom = new Map<string, Map<string, number>>();
  const wentTo = new Map<string, Map<string | null, number>>();
  pairs.forEach((olderIndex, newerIndex) => {
    if (olderIndex === null) return;
    const from = older[olderIndex]!.speaker;
    const to = newer[newerIndex]!.speaker;
    if (from === null) return;
    const going = wentTo.get(from) ?? new Map<string | null, number>();
    going.set(to, (going.get(to) ?? 0) + 1);
    wentTo.set(from, going);
    if (to === null) return;
    const coming = cameFrom.get(to) ?? new Map<string, number>();
    coming.set(from, (coming.get(from) ?? 0) + 1);
    cameFrom.set(to, coming);
  });

  const result = new Map<string, Counterpart>();
  for (const [label, lines] of own) {
    const going = wentTo.get(label) ?? new Map<string | null, number>();
    const found = [...going.values()].reduce((sum, n) => sum + n, 0);
    const into = [...going]
      .sort((a, b) => b[1] - a[1])
      .flatMap(([to]) => (to === null ? [] : [to]));
    if (found === 0) {
      result.set(label, { reason: 'gone', into });
      continue;
    }
    if (found < MIN_FOUND * lines) {
      result.set(label, { reason: 'changed', into });
      continue;
    }
    const [top, votes] = [...going].sort((a, b) => b[1] - a[1])[0]!;
    if (top === null) {
      result.set(label, { reason: 'gone', into });
    } else if (votes < SAME_SPEAKER * found) {
      result.set(label, { reason: 'split', into });
    } else {
      const coming = cameFrom.get(top)!;
      const total = [...coming.values()].reduce((sum, n) => sum + n, 0);
      result.set(
        label,
        (coming.get(label) ?? 0) < SAME_SPEAKER * total
          ? { reason: 'merged', into: [top] }
          : { label: top },
      );
    }
  }
  return result;
}

/** The older version's overlay carried to the newer version's lines. */
export function carryOver(
  olderLines: readonly SpokenLine[],
  olderOverlay: SpeakerOverlay,
  newerLines: readonly SpokenLine[],
): CarryOver {
  const pairs = alignLines(olderLines, newerLines);
  const match = counterparts(olderLines, newerLines, pairs);
  const carried: CarriedName[] = [];
  const dropped: DroppedName[] = [];
  for (const name of olderOverlay.names) {
    const counterpart = match.get(name.label) ?? { reason: 'gone' as const, into: [] };
    if ('label' in counterpart) {
      carried.push({ ...name, label: counterpart.label, from: name.label });
    } else {
      dropped.push({ ...name, ...counterpart });
    }
  }

  const newerOf = new Map<number, number>();
  pairs.forEach((olderIndex, newerIndex) => {
    if (olderIndex !== null) newerOf.set(olderIndex, newerIndex);
  });
  const moves: LineMove[] = [];
  let droppedMoves = 0;
  for (const move of olderOverlay.moves) {
    const line = newerOf.get(move.line);
    const counterpart = match.get(move.label);
    if (line === undefined || !counterpart || !('label' in counterpart)) {
      droppedMoves++;
    } else if (newerLines[line]!.speaker !== counterpart.label) {
      moves.push({ line, label: counterpart.label });
    }
  }
  return {
    overlay: { names: carried.map(({ label, name, role }) => ({ label, name, role })), moves },
    carried,
    dropped,
    droppedMoves,
  };
}

/** Why a name was left behind, in plain words. */
export function droppedNameWords({ name, label, reason, into }: DroppedName): string {
  const why: Record<DropReason, string> = {
    gone: `${label} is not in this version`,
    split: `${label}’s lines are split between ${into.join(' and ')} in this version`,
    merged: `${label}’s lines are part of ${into[0] ?? 'another speaker'}’s in this version`,
    changed: `${label}’s lines changed too much in this version to tell who is who`,
  };
  return `“${name}” (${label}) was not carried over: ${why[reason]}.`;
}
