/**
 * The README and the guides under docs/ link to each other, to files and to sections: every
 * relative link leads to a file that exists, and every `#section` to a heading it has.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.ts';

const documents = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replaceAll(' ', '-');

const anchorsIn = (file: string) =>
  new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => anchorOf(line.replace(/^#+ /, ''))),
  );

describe('the documentation’s links', () => {
  it.each(documents)('in %s lead to files and sections that exist', (document) => {
    const text = readFileSync(join(repoRoot, document), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const file = path ? join(repoRoot, dirname(document), path) : join(repoRoot, document);
      if (!existsSync(file)) broken.push(`${target} (no file ${relative(repoRoot, file)})`);
      else if (anchor && file.endsWith('.md') && !anchorsIn(file).has(anchor)) broken.push(`${target} (no such section)`);
    }
    expect(broken).toEqual([]);
  });
});
