import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
