/**
 * A word diff between two versions of a text (transcript versions): Myers' O(ND) algorithm in
 * linear space (the "middle snake" bisection, as in diff-match-patch), over word tokens.
 *
 * Tokens are runs of letters, digits and apostrophes, and single punctuation marks, so
 * "cough." → "[inaudible]." shows the word replaced and the full stop kept. Whitespace is not
 * compared: each token carries the whitespace before it, and the output keeps the newer version's
 * spacing for unchanged words where it has any (a word diff, not a layout diff).
 */

export type DiffOp = 'equal' | 'insert' | 'delete';

/** A run of text that is in both versions, only in the newer one, or only in the older one. */
export interface DiffSegment {
  op: DiffOp;
  text: string;
}

export interface WordDiff {
  segments: DiffSegment[];
  /** Words (tokens with a letter or digit) only in the newer / only in the older version. */
  inserted: number;
  deleted: number;
}

export interface DiffOptions {
  /**
   * How many diagonal steps the search may take before it stops looking for the shortest edit
   * and reports the rest of a region as deleted then inserted (still a correct diff). Two
   * unrelated 15,000-word versions would otherwise take seconds.
   */
  maxSteps?: number;
}

const DEFAULT_MAX_STEPS = 5_000_000;

interface Token {
  space: string;
  word: string;
}

const TOKEN = /(\s*)([\p{L}\p{M}\p{N}'’]+|[^\s\p{L}\p{M}\p{N}'’])/gu;
const IS_WORD = /[\p{L}\p{N}]/u;

function tokenize(text: string): { tokens: Token[]; trailing: string } {
  const tokens: Token[] = [];
  let end = 0;
  for (const match of text.matchAll(TOKEN)) {
    tokens.push({ space: match[1]!, word: match[2]! });
    end = match.index + match[0].length;
  }
  return { tokens, trailing: text.slice(end) };
}

/**
 * The edit script between two integer sequences, as ops in order: each 'equal' consumes one
 * element of both, 'delete' one of `a`, 'insert' one of `b`.
 */
export function diffSequences(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  { maxSteps = DEFAULT_MAX_STEPS }: DiffOptions = {},
): DiffOp[] {
  const ops: DiffOp[] = [];
  let steps = 0;
  const push = (op: DiffOp, count: number) => {
    for (let i = 0; i < count; i++) ops.push(op);
  };

  const diff = (aLo: number, aHi: number, bLo: number, bHi: number): void => {
    // Common prefix and suffix cost nothing to match and shrink the search.
    let prefix = 0;
    while (aLo + prefix < aHi && bLo + prefix < bHi && a[aLo + prefix] === b[bLo + prefix])
      prefix++;
    push('equal', prefix);
    aLo += prefix;
    bLo += prefix;
    let suffix = 0;
    while (aHi - suffix > aLo && bHi - suffix > bLo && a[aHi - suffix - 1] === b[bHi - suffix - 1])
      suffix++;
    aHi -= suffix;
    bHi -= suffix;
    if (aLo === aHi) push('insert', bHi - bLo);
    else if (bLo === bHi) push('delete', aHi - aLo);
    else {
      const split = middleSnake(aLo, aHi, bLo, bHi);
      if (split === null) {
        push('delete', aHi - aLo);
        push('insert', bHi - bLo);
      } else {
        diff(aLo, aLo + split.x, bLo, bLo + split.y);
        diff(aLo + split.x, aHi, bLo + split.y, bHi);
      }
    }
    push('equal', suffix);
  };

  /**
   * Where a shortest edit path crosses the middle: searches forward from the start and backward
   * from the end at once until the two reach each other. Offsets are relative to aLo / bLo; null
   * when the step budget runs out.
   */
  const middleSnake = (
    aLo: number,
    aHi: number,
    bLo: number,
    bHi: number,
  ): { x: number; y: number } | null => {
    const n = aHi - aLo;
    const m = bHi - bLo;
    const maxD = Math.ceil((n + m) / 2);
    const offset = maxD + 1;
    const size = 2 * maxD + 3;
    // Furthest x reached on each diagonal k = x − y, forward (from the start) and backward
    // (counted from the end); −1 where not reached yet.
    const forward = new Int32Array(size).fill(-1);
    const backward = new Int32Array(size).fill(-1);
    forward[offset + 1] = 0;
    backward[offset + 1] = 0;
    const delta = n - m;
    // With an odd delta the paths meet on a forward step, with an even one on a backward step.
    const meetForward = delta % 2 !== 0;
    // Diagonals that ran off the grid's edge are skipped in later rounds.
    let fStart = 0;
    let fEnd = 0;
    let bStart = 0;
    let bEnd = 0;
    for (let d = 0; d < maxD; d++) {
      for (let k = -d + fStart; k <= d - fEnd; k += 2) {
        const i = offset + k;
        let x =
          k === -d || (k !== d && forward[i - 1]! < forward[i + 1]!)
            ? forward[i + 1]!
            : forward[i - 1]! + 1;
        const start = x;
        let y = x - k;
        while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
          x++;
          y++;
        }
        steps += 1 + x - start;
        forward[i] = x;
        if (x > n) fEnd += 2;
        else if (y > m) fStart += 2;
        else if (meetForward) {
          const j = offset + delta - k;
          if (j >= 0 && j < size && backward[j] !== -1 && x >= n - backward[j]!) return { x, y };
        }
      }
      for (let k = -d + bStart; k <= d - bEnd; k += 2) {
        const i = offset + k;
        let x =
          k === -d || (k !== d && backward[i - 1]! < backward[i + 1]!)
            ? backward[i + 1]!
            : backward[i - 1]! + 1;
        const start = x;
        let y = x - k;
        while (x < n && y < m && a[aHi - x - 1] === b[bHi - y - 1]) {
          x++;
          y++;
        }
        steps += 1 + x - start;
        backward[i] = x;
        if (x > n) bEnd += 2;
        else if (y > m) bStart += 2;
        else if (!meetForward) {
          const j = offset + delta - k;
          if (j >= 0 && j < size && forward[j] !== -1) {
            const forwardX = forward[j]!;
            if (forwardX >= n - x) return { x: forwardX, y: forwardX - (j - offset) };
          }
        }
      }
      if (steps > maxSteps) return null;
    }
    return null;
  };

  diff(0, a.length, 0, b.length);
  return ops;
}

/** The word diff from `before` to `after`. */
export function diffWords(before: string, after: string, options?: DiffOptions): WordDiff {
  const old = tokenize(before);
  const now = tokenize(after);
  // Words as integers: the search compares them many times.
  const ids = new Map<string, number>();
  const idOf = (token: Token) => {
    let id = ids.get(token.word);
    if (id === undefined) ids.set(token.word, (id = ids.size));
    return id;
  };
  const ops = diffSequences(
    Int32Array.from(old.tokens, idOf),
    Int32Array.from(now.tokens, idOf),
    options,
  );

  const segments: DiffSegment[] = [];
  const emit = (op: DiffOp, text: string) => {
    if (text === '') return;
    const last = segments[segments.length - 1];
    if (last?.op === op) last.text += text;
    else segments.push({ op, text });
  };
  let inserted = 0;
  let deleted = 0;
  let i = 0;
  let j = 0;
  let previous: DiffOp = 'equal';
  for (const op of ops) {
    const oldToken = op === 'insert' ? undefined : old.tokens[i++]!;
    const newToken = op === 'delete' ? undefined : now.tokens[j++]!;
    const token = (newToken ?? oldToken)!;
    // An unchanged word keeps the newer spacing, or the older when only it had a space there
    // (a deleted word just before must not end up glued to it).
    const space = newToken?.space || oldToken?.space || '';
    // The space before a change belongs to the change only inside a run of the same change,
    // so "a b c" → "x y z" reads as one deletion and one insertion.
    emit(op === previous ? op : 'equal', space);
    emit(op, token.word);
    if (IS_WORD.test(token.word)) {
      if (op === 'insert') inserted++;
      else if (op === 'delete') deleted++;
    }
    previous = op;
  }
  emit('equal', now.trailing);
  return { segments, inserted, deleted };
}
