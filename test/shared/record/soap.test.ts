import { describe, expect, it } from 'vitest';
import { escapeHtml, noteHtml, notePlainText, parseSoap } from '../../../src/shared/record/soap';

describe('parseSoap', () => {
  it('reads S:/O:/A:/P: text as its four sections, lines kept', () => {
    const note = parseSoap(
      'S: Bella (dog) presented for vomiting.\nOwner reports two days.\nO: Bright, alert.\nA: Gastritis.\nP: Bland diet; recheck in 3 days.',
    );
    expect(note).toEqual({
      kind: 'sections',
      sections: [
        {
          heading: 'Subjective',
          text: 'Bella (dog) presented for vomiting.\nOwner reports two days.',
        },
        { heading: 'Objective', text: 'Bright, alert.' },
        { heading: 'Assessment', text: 'Gastritis.' },
        { heading: 'Plan', text: 'Bland diet; recheck in 3 days.' },
      ],
    });
  });

  it('reads spelled-out and marked-up headings, and keeps text before the first one', () => {
    const note = parseSoap('Visit 12\n**Subjective:** itchy\n## Plan\nShampoo weekly');
    expect(note).toEqual({
      kind: 'sections',
      sections: [
        { heading: null, text: 'Visit 12' },
        { heading: 'Subjective', text: 'itchy' },
        { heading: 'Plan', text: 'Shampoo weekly' },
      ],
    });
  });

  it('does not take a sentence that starts with a letter for a heading', () => {
    expect(parseSoap('A dog was seen today. Plan to recheck.')).toEqual({
      kind: 'text',
      text: 'A dog was seen today. Plan to recheck.',
    });
  });

  it('reads the JSON the real service sends, in SOAP order, with titled sections', () => {
    const content = JSON.stringify({
      clinical_note: {
        plan: { value: 'Recheck in a week.' },
        subjective: { value: 'Limping since Sunday.' },
        objective: { value: 'Mild swelling, left fore.' },
        assessment: { value: 'Soft-tissue injury.' },
        differential_diagnoses: { value: ['Sprain', 'Fracture (unlikely)'] },
      },
    });
    expect(parseSoap(content)).toEqual({
      kind: 'sections',
      sections: [
        { heading: 'Subjective', text: 'Limping since Sunday.' },
        { heading: 'Objective', text: 'Mild swelling, left fore.' },
        { heading: 'Assessment', text: 'Soft-tissue injury.' },
        { heading: 'Plan', text: 'Recheck in a week.' },
        { heading: 'Differential diagnoses', text: 'Sprain\nFracture (unlikely)' },
      ],
    });
  });

  it('reads nested objects as "Key: value" lines and skips empty sections', () => {
    const content = JSON.stringify({
      subjective: '',
      objective: { vitals: { heartRate: 120, temperature: '38.6 °C' } },
    });
    expect(parseSoap(content)).toEqual({
      kind: 'sections',
      sections: [{ heading: 'Objective', text: 'Vitals:\nHeart rate: 120\nTemperature: 38.6 °C' }],
    });
  });

  it('says a note is being written for "", "{}" and a document of empty sections', () => {
    for (const content of [
      '',
      '  ',
      '{}',
      null,
      '{"clinical_note": {}}',
      '{"clinical_note": {"plan": {"value": ""}}}',
    ]) {
      expect(parseSoap(content)).toEqual({ kind: 'processing' });
    }
  });

  it('shows text it cannot read as sections as the text it is', () => {
    expect(parseSoap('{not json')).toEqual({ kind: 'text', text: '{not json' });
    expect(parseSoap('"a JSON string"')).toEqual({ kind: 'text', text: '"a JSON string"' });
    expect(parseSoap('["first", "second"]')).toEqual({ kind: 'text', text: 'first\nsecond' });
  });
});

describe('the note handed on', () => {
  const note = parseSoap('S: Itchy ears.\nO: Red canals.\n\nBoth sides.\nA: Otitis.\nP: Drops.');

  it('as plain text: each heading on its line above its text, sections a blank line apart', () => {
    expect(notePlainText(note)).toBe(
      'Subjective\nItchy ears.\n\nObjective\nRed canals.\n\nBoth sides.\n\nAssessment\nOtitis.\n\nPlan\nDrops.',
    );
    expect(notePlainText({ kind: 'processing' })).toBe('');
  });

  it('as HTML: headings and paragraphs, every character of the text escaped', () => {
    expect(noteHtml(parseSoap('S: <b>"Tom" & Jerry\'s</b>\nline two'))).toBe(
      '<h3>Subjective</h3><p>&lt;b&gt;&quot;Tom&quot; &amp; Jerry&#39;s&lt;/b&gt;<br>line two</p>',
    );
    expect(noteHtml(note)).toContain('<h3>Objective</h3><p>Red canals.</p><p>Both sides.</p>');
    expect(escapeHtml('<script>')).toBe('&lt;script&gt;');
  });
});
