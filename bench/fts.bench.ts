// Full-text search over 100,000 cached transcripts (issue 5, "Benchmarks"): how long a search
// takes, as a screen would ask it, over a cache the size of a busy clinic's years.
//
//   npx tsx bench/fts.bench.ts        (or: npm run bench -- fts)
//
// The cache: 80,000 labels, each with a transcript of 8–16 lines drawn at random from the demo
// clinic's dialogue bank (src/service/demo/dialogue.ts) and a visit line naming its patient, of
// which 20,000 also keep a replaced first version: 100,000 transcripts, written through the
// cache's own writer (so the index is built by its triggers).
//
// Figure: p95 of `cache.read.search(query, { limit: 20 })`, measured from the call to its
// answer in the main thread (the reader thread's query, the message both ways and the snippets),
// over QUERIES (single words common and rare, patient names, words being typed, two and three
// words, a phrase, a word found nowhere), each asked ROUNDS times after a warm-up round. Target
// 30 ms. Baseline: the same words as `content LIKE '%word%'` (one per word, ANDed) on the same
// notes table, collecting every match as a ranking would need, with better-sqlite3 on the
// calling thread.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCache } from '../src/main/cache';
import { ftsExpression } from '../src/main/cache/search';
import { DIALOGUE_SCRIPTS, PATIENT_NAMES } from '../src/service/demo/dialogue';
import { seededRandom } from '../src/service/random';
import { RECORD_TYPES, type Label } from '../src/shared/api';
import { SEARCH_QUERIES as QUERIES } from './lib/search-queries';
import { machine, median, quantile, report, type Figure } from './lib/report';
import { allTimes, timeLikes, timeSearches } from './lib/search';

const LABELS = 80_000;
const WITH_HISTORY = 20_000;
const TRANSCRIPTS = LABELS + WITH_HISTORY;
const BATCH = 1000;
const ROUNDS = 20;
const TARGET_P95_MS = 30;

function transcripts(): {
  lines: string[];
  pick: (random: ReturnType<typeof seededRandom>) => string;
} {
  const lines = DIALOGUE_SCRIPTS.flatMap((script) =>
    script.lines.map((line) => `${line.speaker}: ${line.text}`),
  );
  return {
    lines,
    pick: (random) =>
      Array.from({ length: random.int(8, 16) }, () => random.pick(lines)).join('\n'),
  };
}

function labelsOf(from: number, to: number, now: number): Label[] {
  const random = seededRandom(`earmark-fts-bench-${from}`);
  const { pick } = transcripts();
  const iso = (ms: number) => new Date(ms).toISOString();
  const out: Label[] = [];
  for (let i = from; i < to; i++) {
    const fromMs = now - i * 10 * 60_000;
    const patient = PATIENT_NAMES[i % PATIENT_NAMES.length]!;
    const current = {
      type: 'Transcript',
      content: `${pick(random)}\nVet: That was visit ${i + 1} for ${patient.name}.`,
      createdAt: iso(fromMs + 20 * 60_000),
      time: iso(fromMs + 20 * 60_000),
    };
    const notes =
      i % (LABELS / WITH_HISTORY) === 0
        ? [
            {
              ...current,
              content: `${pick(random)}\n[inaudible]`,
              createdAt: iso(fromMs + 12 * 60_000),
              time: iso(fromMs + 12 * 60_000),
            },
            current,
          ]
        : [current];
    out.push({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      type: RECORD_TYPES[i % RECORD_TYPES.length]!,
      fromTime: iso(fromMs),
      toTime: iso(fromMs + 10 * 60_000),
      patient: { id: `patient-${i % PATIENT_NAMES.length}`, name: patient.name },
      ownedPatientNotes: notes,
      friendlyName: 'Exam Room iPad',
      deviceSerial: 'IPAD-44F1',
    });
  }
  return out;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machineInfo = machine();
  const dir = mkdtempSync(join(tmpdir(), 'earmark-fts-bench-'));
  const file = join(dir, 'cache.sqlite');
  try {
    const cache = await openCache({ file });
    const now = Date.now();
    const buildStarted = performance.now();
    for (let from = 0; from < LABELS; from += BATCH)
      await cache.write.storeLabels(labelsOf(from, Math.min(LABELS, from + BATCH), now), now);
    const buildMs = performance.now() - buildStarted;
    const stats = await cache.read.stats();
    if (stats.notes !== TRANSCRIPTS)
      throw new Error(`expected ${TRANSCRIPTS} notes: ${stats.notes}`);

    const search = await timeSearches(cache, QUERIES, ROUNDS);
    await cache.close();
    const like = timeLikes(file, QUERIES, ROUNDS);
    const fts = search.ms;
    const hits = search.found;
    const likeMatches = like.found;

    const p95 = quantile(allTimes(search), 0.95);
    process.stdout.write(
      `\nFTS over ${TRANSCRIPTS.toLocaleString('en')} transcripts (${LABELS.toLocaleString('en')} labels; ` +
        `built in ${(buildMs / 1000).toFixed(1)} s through the cache's writer)\n` +
        QUERIES.map(
          (q) =>
            `  ${q.padEnd(26)} FTS median ${median(fts[q]!)!.toFixed(1).padStart(6)} ms, ${String(hits[q]).padStart(2)} hits | ` +
            `LIKE median ${median(like.ms[q]!)!.toFixed(1).padStart(6)} ms, ${likeMatches[q]} matches`,
        ).join('\n') +
        '\n',
    );
    const figures: Figure[] = [
      {
        figure: `search, p95 over ${QUERIES.length} queries × ${ROUNDS}`,
        unit: 'ms',
        measured: p95,
        target: TARGET_P95_MS,
        baseline: quantile(allTimes(like), 0.95),
        baselineIs: "LIKE '%word%' per word on the same notes table, every match, p95",
        samples: allTimes(search).length,
      },
    ];
    report('fts', startedAt, machineInfo, figures, {
      transcripts: TRANSCRIPTS,
      medianMs: median(allTimes(search)),
      likeMedianMs: median(allTimes(like)),
      labels: LABELS,
      buildMs,
      queries: Object.fromEntries(
        QUERIES.map((q) => [
          q,
          {
            expression: ftsExpression(q),
            hits: hits[q],
            ftsMedianMs: median(fts[q]!),
            ftsMaxMs: Math.max(...fts[q]!),
            likeMatches: likeMatches[q],
            likeMedianMs: median(like.ms[q]!),
          },
        ]),
      ),
      note: 'FTS is timed through the cache’s reader thread (what a screen waits for); LIKE runs on the calling thread, with no messaging.',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
