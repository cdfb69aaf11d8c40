/**
 * What `npm start` makes sure of before it starts anything, so that each way it cannot start
 * is one line saying what to do (and a non-zero exit), never a stack trace or a minute of
 * silence: Java for DynamoDB Local, a port it can listen on, and a data folder no other
 * `npm start` is using.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { linkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { readJsonFile } from './durable-file.ts';

/** A reason `npm start` cannot start that the person at the terminal can act on: its message is the whole story. */
export class StartupProblem extends Error {
  override readonly name = 'StartupProblem';
}

export const DEFAULT_PORT = 3000;
/** DynamoDB Local 2.x and later run on Java 17 or later. */
export const MIN_JAVA = 17;

/** The major version in `java -version`'s output (`1.8.0_392` is 8, `17.0.9` is 17). */
export function javaMajorVersion(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return undefined;
  return match[1] === '1' ? Number(match[2]) : Number(match[1]);
}

export function checkJava(run: () => SpawnSyncReturns<string> = () => spawnSync('java', ['-version'], { encoding: 'utf8' })): void {
  const answer = run();
  if (answer.error)
    throw new StartupProblem(
      `DynamoDB Local needs Java ${MIN_JAVA} or later, and there is no \`java\` on the PATH: install it (Debian: apt-get install -y openjdk-17-jre-headless)`,
    );
  const major = javaMajorVersion(`${answer.stderr ?? ''}${answer.stdout ?? ''}`);
  if (major === undefined || major < MIN_JAVA)
    throw new StartupProblem(
      `DynamoDB Local needs Java ${MIN_JAVA} or later, and the \`java\` on the PATH is ${major === undefined ? 'of a version `java -version` does not tell' : `Java ${major}`}: install Java ${MIN_JAVA} or put it first on the PATH`,
    );
}

/** The port `PORT` names (3000 when unset). */
export function portFrom(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) throw new StartupProblem(`PORT=${raw} is not a port: give a number from 1 to 65535, for example PORT=3001 npm start`);
  return port;
}

/** What to say when the gateway cannot listen on `port` (the check below, or a program that took the port since). */
export function portProblem(port: number, error: NodeJS.ErrnoException): Error {
  if (error.code === 'EADDRINUSE')
    return new StartupProblem(`port ${port} is taken by another program: choose another, for example PORT=${port === 65_535 ? 3001 : port + 1} npm start`);
  if (error.code === 'EACCES')
    return new StartupProblem(`port ${port} needs privileges this user does not have: choose one above 1023, for example PORT=3001 npm start`);
  return error;
}

export function checkPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => reject(portProblem(port, error)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

interface Holder {
  pid: number;
  port: number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Holds the data folder for this process: a lock file naming its pid and port. Another
 * `npm start` on the same folder would share DynamoDB Local's files and overwrite the
 * endpoints the CLIs read, so it is refused while the holder lives; a lock left by a run that
 * was killed is taken over. Returns the release. The lock is written whole before it appears
 * (a hard link of a finished file fails if the lock exists), so a reader never sees half of one.
 */
export function holdDataFolder(dir: string, port: number): () => void {
  const lock = join(dir, 'npm-start.lock');
  const draft = join(dir, `npm-start.lock.${process.pid}`);
  writeFileSync(draft, JSON.stringify({ pid: process.pid, port } satisfies Holder));
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        linkSync(draft, lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw error;
        const holder = readHolder(lock);
        if (holder && holder.pid !== process.pid && isAlive(holder.pid))
          throw new StartupProblem(
            `${dir} is the data folder of another npm start (pid ${holder.pid}, port ${holder.port}): stop that one, or give this one its own, for example LOCAL_DATA_DIR=${dir}-2 PORT=${port + 1} npm start`,
          );
        rmSync(lock, { force: true });
      }
    }
  } finally {
    rmSync(draft, { force: true });
  }
  return () => {
    if (readHolder(lock)?.pid === process.pid) rmSync(lock, { force: true });
  };
}

/** The lock's holder; none when the lock is missing or unreadable (a run killed while writing it). */
const readHolder = (lock: string) => readJsonFile<Holder>(lock, () => undefined);
