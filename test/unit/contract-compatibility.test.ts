/**
 * The contract's version follows its changes: compared with the last published contract (by
 * api-smart-diff, which classifies each difference), any change needs a new `info.version` and
 * a changelog entry for it, and a breaking change an entry that lists it under **Breaking**.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiCompare } from 'api-smart-diff';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.ts';

type Contract = { info: { version: string } };
const read = (file: string) => JSON.parse(readFileSync(join(repoRoot, file), 'utf8')) as Contract;
const current = read('contract/openapi.json');
const published = readdirSync(join(repoRoot, 'contract/published'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => read(`contract/published/${f}`));
/** Whether version `a` comes after `b`: the date, then the draft's number as a number (draft.10 after draft.9), a final version after its drafts. */
function laterVersion(a: string, b: string): boolean {
  const parts = (v: string) => {
    const [date, draft] = v.split('-draft.');
    return [date!, draft === undefined ? Number.POSITIVE_INFINITY : Number(draft)] as const;
  };
  const [dateA, draftA] = parts(a);
  const [dateB, draftB] = parts(b);
  return dateA === dateB ? draftA > draftB : dateA > dateB;
}

const previous = published
  .filter((p) => p.info.version !== current.info.version)
  .sort((a, b) => (laterVersion(a.info.version, b.info.version) ? 1 : -1))
  .at(-1)!;
const changelog = readFileSync(join(repoRoot, 'contract/CHANGELOG.md'), 'utf8');

/** The changelog's entry for a version: from its heading to the next. */
const entryOf = (version: string) => changelog.split(/^## /m).find((section) => section.startsWith(`${version}\n`));

describe('the contract version', () => {
  const { diffs } = apiCompare(previous, current);
  const changed = diffs.filter((d) => !(d.path.join('/') === 'info/version'));
  const breaking = changed.filter((d) => d.type === 'breaking');

  it('is raised on any change to the contract, with a changelog entry for the new version', () => {
    if (changed.length === 0) return expect(current.info.version).toBe(previous.info.version);
    expect(laterVersion(current.info.version, previous.info.version), `${current.info.version} must come after ${previous.info.version}`).toBe(true);
    expect(entryOf(current.info.version), `contract/CHANGELOG.md has no "## ${current.info.version}" entry`).toBeDefined();
  });

  it('names one contract: the file is byte for byte the one kept for its version (npm run contract refuses to change it under the same version)', () => {
    const kept = readFileSync(join(repoRoot, `contract/published/${current.info.version}.json`), 'utf8');
    expect(
      readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8') === kept,
      `contract/openapi.json changed under ${current.info.version}: raise the version`,
    ).toBe(true);
  });

  it('lists a breaking change as breaking in its changelog entry', () => {
    if (breaking.length === 0) return;
    expect(entryOf(current.info.version) ?? '', `${breaking.length} breaking differences, e.g. ${breaking[0]!.path.join('/')}`).toContain('**Breaking**');
  });

  it('tells breaking from compatible as partners would: a removed endpoint is breaking, an added optional answer member is not', () => {
    const before = structuredClone(previous) as Contract & { paths: Record<string, unknown> };
    const withoutCapabilities = { ...before, paths: Object.fromEntries(Object.entries(before.paths).filter(([p]) => p !== '/capabilities')) };
    expect(apiCompare(before, withoutCapabilities).diffs.some((d) => d.type === 'breaking')).toBe(true);
    const withMember = structuredClone(current) as Contract & { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    withMember.components.schemas.Capabilities!.properties.new_member = { type: 'string' };
    const added = apiCompare(current, withMember).diffs;
    expect(added.length).toBeGreaterThan(0);
    expect(added.filter((d) => d.type === 'breaking')).toEqual([]);
  });
});
