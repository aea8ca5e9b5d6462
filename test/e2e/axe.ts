import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * axe-core's WCAG 2.0 and 2.1 A and AA rules over the page as it is now: one line per rule
 * broken, with its first elements and why (a contrast ratio, a missing name…).
 */
export async function violations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the app's Content-Security-Policy does not apply.
  await page.evaluate(AXE_SOURCE);
  const found = (await page.evaluate(`
    axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }).then((result) => result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    })))`)) as Violation[];
  return found.map((v) => {
    const examples = v.nodes
      .slice(0, 3)
      .map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1).join(' ')}`);
    return `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} element(s), e.g. ${examples.join(' | ')}`;
  });
}
