/**
 * The README is for its reader: short enough to read, and its performance table is exactly what
 * the last benchmark run measured (bench/results/latest.json), never a hand-written figure.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { performanceTable, TABLE_END, TABLE_START, withPerformanceTable } from '#bench/lib/readme-table.ts';
import { repoRoot } from '../../support/paths.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const results = JSON.parse(readFileSync(join(repoRoot, 'bench/results/latest.json'), 'utf8'));

describe('the README', () => {
  it('stays within 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('shows the performance table that bench/results/latest.json holds (npm run bench -- --report-only rewrites it)', () => {
    const table = readme.slice(readme.indexOf(TABLE_START), readme.indexOf(TABLE_END) + TABLE_END.length);
    expect(table).toBe(performanceTable(results));
  });

  it('has one row per target, or per group of alike targets with how many of them were met', () => {
    const table = performanceTable(results);
    const withTarget = results.figures.filter((f: { target: number | null }) => f.target !== null);
    const counted = [...table.matchAll(/\| (?:yes|\*\*no\*\*)(?:, |: )?(?:(\d+) of (\d+))? \|$/gm)].reduce((n, m) => n + Number(m[2] ?? 1), 0);
    expect(counted).toBe(withTarget.length);
    const unmet = results.figures.filter((f: { met: boolean | null }) => f.met === false);
    expect(unmet.length > 0).toBe(table.includes('**no**'));
  });

  it('notices a figure changed in the results but not in the README', () => {
    const changed = structuredClone(results);
    changed.figures.find((f: { target: number | null }) => f.target !== null).ratio = 9.99;
    expect(performanceTable(changed)).not.toBe(performanceTable(results));
    expect(() => withPerformanceTable('no markers here', performanceTable(results))).toThrow(/markers/);
  });
});
