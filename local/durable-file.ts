/**
 * Files the local runtime keeps across kills (stream checkpoints, credentials, runtime.json):
 * written whole or not at all (temporary file, fsync, rename, fsync of the folder), and read
 * defensively, so a SIGKILL in the middle of a write never leaves a runtime that cannot start.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function writeFileAtomic(path: string, data: string, mode = 0o644): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(temporary, 'w', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const folder = openSync(dirname(path), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

/** The JSON in `path`; undefined when it is missing, or when it is damaged (then `onDamaged` hears why). */
export function readJsonFile<T>(path: string, onDamaged: (reason: string) => void): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    onDamaged(`${path} is damaged (${(error as Error).message}); it is ignored`);
    return undefined;
  }
}
