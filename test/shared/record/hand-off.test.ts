import { describe, expect, it } from 'vitest';
import { handOffHtml, handOffText, type HandOff } from '../../../src/shared/record/hand-off';
import { parseSoap } from '../../../src/shared/record/soap';

const consult: HandOff = {
  patient: 'Bella <Smith>',
  fromMs: Date.UTC(2026, 10, 23, 10, 51),
  toMs: Date.UTC(2026, 10, 23, 11, 8),
  timeZone: 'UTC',
  recordKind: 'Ambient hub recording',
  note: parseSoap(
    'S: Vomiting since Tuesday.\nO: T 39.1 °C.\nA: Gastritis.\nP: Bland diet & recheck.',
  ),
  locale: 'en-GB',
};

describe('the hand-off to the practice system', () => {
  it('names who spoke after the record, where the speakers are named', () => {
    const named = { ...consult, speakers: 'Dr Marsh (vet), Mrs <Patel> (owner)' };
    expect(handOffText(named)).toContain(
      'Record: Ambient hub recording\nSpeakers: Dr Marsh (vet), Mrs <Patel> (owner)\n\nSubjective',
    );
    expect(handOffHtml(named)).toContain(
      '<strong>Speakers:</strong> Dr Marsh (vet), Mrs &lt;Patel&gt; (owner)</p>',
    );
    expect(handOffText({ ...consult, speakers: '' })).not.toContain('Speakers');
  });

  it('as plain text: who, when, what, then the note with its section headings', () => {
    expect(handOffText(consult)).toBe(
      [
        'Patient: Bella <Smith>',
        'Date: Mon, 23 Nov 2026, 10:51–11:08 (UTC)',
        'Record: Ambient hub recording',
        '',
        'Subjective',
        'Vomiting since Tuesday.',
        '',
        'Objective',
        'T 39.1 °C.',
        '',
        'Assessment',
        'Gastritis.',
        '',
        'Plan',
        'Bland diet & recheck.',
        '',
      ].join('\n'),
    );
  });

  it('as HTML for a rich paste, with every text escaped', () => {
    const html = handOffHtml(consult);
    expect(html).toContain('<strong>Patient:</strong> Bella &lt;Smith&gt;');
    expect(html).toContain('<h3>Plan</h3><p>Bland diet &amp; recheck.</p>');
    expect(html).not.toContain('<Smith>');
  });

  it('names a consult across midnight by both days, and a record without a patient as such', () => {
    const text = handOffText({
      ...consult,
      patient: null,
      fromMs: Date.UTC(2026, 10, 23, 23, 50),
      toMs: Date.UTC(2026, 10, 24, 0, 10),
    });
    expect(text).toContain('Patient: Not assigned');
    expect(text).toContain('Date: Mon, 23 Nov 2026, 23:50 – Tue, 24 Nov 2026, 00:10 (UTC)');
  });
});
