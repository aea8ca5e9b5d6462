import { isProcessingContent } from '../transcript';

/**
 * Reading a clinical (SOAP) note. The seed leaves the SOAP note's content open; two forms are
 * known: plain text with "S:", "O:", "A:", "P:" (or spelled-out) headings, as the reference
 * service writes it, and a JSON document in the string, as the real service sends it
 * (`{"clinical_note": {"subjective": {"value": "…"}, …}}`). Empty content or "{}" means the
 * service has not written it yet. Anything else is shown as the text it is, never dropped.
 */

interface NoteSection {
  /** "Subjective", "Plan", …; null for text before the first heading. */
  heading: string | null;
  text: string;
}

export type ParsedNote =
  | { kind: 'processing' }
  | { kind: 'sections'; sections: NoteSection[] }
  | { kind: 'text'; text: string };

const SOAP_ORDER = ['subjective', 'objective', 'assessment', 'plan'] as const;
const SOAP_LETTERS: Record<string, string> = {
  s: 'Subjective',
  o: 'Objective',
  a: 'Assessment',
  p: 'Plan',
};

// A heading line: "S:", "Subjective:", "**Plan:**", "## Assessment", optionally followed by text.
const HEADING_LINE =
  /^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(s|o|a|p|subjective|objective|assessment|plan)\s*(?::|\s*$)\s*(?:\*\*|__)?\s*(.*)$/i;

export function parseSoap(content: string | null | undefined): ParsedNote {
  if (isProcessingContent(content)) return { kind: 'processing' };
  const text = (content ?? '').trim();
  if (text.startsWith('{') || text.startsWith('[')) {
    const parsed = parseJson(text);
    if (parsed !== undefined) return fromJson(parsed);
  }
  return fromText(text);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function fromText(text: string): ParsedNote {
  const sections: NoteSection[] = [];
  let current: NoteSection = { heading: null, text: '' };
  let headings = 0;
  for (const line of text.split(/\r?\n/)) {
    const match = HEADING_LINE.exec(line);
    if (match) {
      if (current.heading !== null || current.text.trim() !== '') sections.push(current);
      const name = match[1]!.toLowerCase();
      current = { heading: SOAP_LETTERS[name] ?? titleOf(name), text: match[2] ?? '' };
      headings++;
    } else {
      current.text = current.text === '' ? line : `${current.text}\n${line}`;
    }
  }
  sections.push(current);
  if (headings === 0) return { kind: 'text', text };
  return {
    kind: 'sections',
    sections: sections.map((s) => ({ heading: s.heading, text: s.text.trim() })),
  };
}

function fromJson(document: unknown): ParsedNote {
  const root = isObject(document) ? unwrap(document) : document;
  if (!isObject(root)) {
    const text = flatten(root).trim();
    return text === '' ? { kind: 'processing' } : { kind: 'text', text };
  }
  const keys = Object.keys(root);
  const ordered = [
    ...SOAP_ORDER.flatMap((name) => keys.filter((key) => normalize(key) === name)),
    ...keys.filter((key) => !(SOAP_ORDER as readonly string[]).includes(normalize(key))),
  ];
  const sections = ordered
    .map((key) => ({ heading: titleOf(key), text: flatten(root[key]).trim() }))
    .filter((section) => section.text !== '');
  // A document whose every value is empty is a note the service has not written yet.
  return sections.length === 0 ? { kind: 'processing' } : { kind: 'sections', sections };
}

/** The note itself when the document wraps it: {"clinical_note": {…}} or {"soap": {…}}. */
function unwrap(document: Record<string, unknown>): unknown {
  const keys = Object.keys(document);
  if (keys.length === 1 && /^(clinical_?note|soap(_?note)?|note)$/i.test(keys[0]!)) {
    return document[keys[0]!];
  }
  return document;
}

/** A section's value as text: {"value": …} unwrapped, lists one item a line, objects as "Key: value". */
function flatten(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value))
    return value
      .map(flatten)
      .filter((line) => line.trim() !== '')
      .join('\n');
  if (isObject(value)) {
    if ('value' in value) return flatten(value.value);
    return Object.entries(value)
      .map(([key, inner]) => [titleOf(key), flatten(inner).trim()] as const)
      .filter(([, text]) => text !== '')
      .map(([heading, text]) =>
        text.includes('\n') ? `${heading}:\n${text}` : `${heading}: ${text}`,
      )
      .join('\n');
  }
  return '';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const normalize = (key: string) => key.replace(/[\s_-]/g, '').toLowerCase();

/** "differential_diagnoses" and "differentialDiagnoses" → "Differential diagnoses". */
function titleOf(key: string): string {
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The note as plain text with its section headings, as pasted into a practice system. */
export function notePlainText(note: ParsedNote): string {
  switch (note.kind) {
    case 'processing':
      return '';
    case 'text':
      return note.text;
    case 'sections':
      return note.sections
        .map(({ heading, text }) => (heading === null ? text : `${heading}\n${text}`))
        .join('\n\n');
  }
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/** Text made safe to place in HTML: every markup character escaped. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** Paragraphs of text (blank-line separated) with their line breaks, escaped. */
const paragraphs = (text: string) =>
  text
    .split(/\n{2,}/)
    .filter((part) => part.trim() !== '')
    .map((part) => `<p>${escapeHtml(part.trim()).replaceAll('\n', '<br>')}</p>`)
    .join('');

/** The note as HTML (section headings and paragraphs), for a rich paste; all text escaped. */
export function noteHtml(note: ParsedNote): string {
  switch (note.kind) {
    case 'processing':
      return '';
    case 'text':
      return paragraphs(note.text);
    case 'sections':
      return note.sections
        .map(
          ({ heading, text }) =>
            (heading === null ? '' : `<h3>${escapeHtml(heading)}</h3>`) + paragraphs(text),
        )
        .join('');
  }
}
