/**
 * What a regeneration makes of a note when the sandbox is not told the new text: the same words
 * as a second pass of transcription would write them. The demo's dialogue is written without
 * contractions (so espeak-ng speaks it clearly); a second pass writes them as people say them —
 * a plausible, readable change that the version diff shows and that keeps every speaker label.
 */
const CONTRACTIONS: readonly [RegExp, string][] = [
  [/\b(I) am\b/g, "$1'm"],
  [/\b(I) would\b/g, "$1'd"],
  [/\b(I) will\b/g, "$1'll"],
  [/\b(it|that|there|what|she|he) is\b/gi, "$1's"],
  [/\b(we|you|they) are\b/gi, "$1're"],
  [/\b(we|you|they) will\b/gi, "$1'll"],
  [/\b(let) us\b/gi, "$1's"],
  [/\b(do|does|did|is|are|was|could|should|would) not\b/gi, "$1n't"],
  [/\bcan not\b|\bcannot\b/gi, "can't"],
  [/\bwill not\b/gi, "won't"],
];

/** The revised text of a note: contractions as spoken; unchanged when none applies. */
export function revisedNoteContent(content: string): string {
  return CONTRACTIONS.reduce(
    (text, [pattern, replacement]) =>
      text.replace(pattern, (match, ...groups: unknown[]) =>
        // "can not" and "will not" have no group; the others keep the word's own case.
        typeof groups[0] === 'string' && replacement.includes('$1')
          ? replacement.replace('$1', groups[0])
          : matchCase(match, replacement),
      ),
    content,
  );
}

/** "Cannot" → "Can't": the replacement takes the match's initial capital. */
const matchCase = (match: string, replacement: string) =>
  /^[A-Z]/.test(match) ? replacement[0]!.toUpperCase() + replacement.slice(1) : replacement;
