import { describe, expect, it } from 'vitest';
import { revisedNoteContent } from '../../../src/service/sandbox/revision';

describe("the sandbox's revision of a note", () => {
  it('writes contractions as spoken and keeps every speaker label and line', () => {
    const first = [
      'Vet: I am going to feel along the leg now. It is not serious.',
      'Owner: That is a relief. We will keep him rested; he does not mind.',
      'Speaker 2: Let us book the x-rays. You cannot feed him tonight.',
    ].join('\n');
    expect(revisedNoteContent(first)).toBe(
      [
        "Vet: I'm going to feel along the leg now. It's not serious.",
        "Owner: That's a relief. We'll keep him rested; he doesn't mind.",
        "Speaker 2: Let's book the x-rays. You can't feed him tonight.",
      ].join('\n'),
    );
  });

  it('leaves text with nothing to contract as it is', () => {
    expect(revisedNoteContent('Vet: Hello.\nOwner: Hi there.')).toBe(
      'Vet: Hello.\nOwner: Hi there.',
    );
  });

  it('keeps the capital of a word that starts a sentence', () => {
    expect(revisedNoteContent('Cannot say. Do not worry.')).toBe("Can't say. Don't worry.");
  });
});
