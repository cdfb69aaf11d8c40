import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The read-only kit beside the repository (contract, decisions, signing vectors). */
export const kitPath = (relative: string) => resolve(repoRoot, '..', 'shared', relative);
