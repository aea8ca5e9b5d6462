import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TYPEBOX_MARKER } from '../../scripts/build/renderer-bundle-report';

const ASSETS = fileURLToPath(new URL('../../out/renderer/assets', import.meta.url));
const scripts = () =>
  readdirSync(ASSETS)
    .filter((name) => name.endsWith('.js'))
    .map((name) => readFileSync(join(ASSETS, name), 'utf8'));

describe('the renderer bundle (npm run build)', () => {
  it('carries no TypeBox code', () => {
    const bundle = scripts();
    expect(bundle.length).toBeGreaterThan(0);
    for (const code of bundle) expect(code.includes(TYPEBOX_MARKER)).toBe(false);
  });

  it('would be caught holding it: the marker is in TypeBox’s own code', () => {
    const require = createRequire(import.meta.url);
    const entry = dirname(require.resolve('@sinclair/typebox'));
    const symbols = readFileSync(join(entry, 'type/symbols/symbols.js'), 'utf8');
    expect(symbols).toContain(TYPEBOX_MARKER);
  });
});
