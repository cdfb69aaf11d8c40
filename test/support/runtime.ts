/**
 * A local runtime of its own for the `*.sequential.test.ts` files: `npm start`'s entry point
 * as a separate process (or `npm start` itself), its data in a directory of the test's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './eventually.ts';
import { repoRoot } from './paths.ts';

export interface Runtime {
  child: ChildProcess;
  baseUrl: string;
  /** Everything it has printed so far, stdout and stderr: what its terminal shows. */
  output(): string;
}

/**
 * Starts the runtime and waits for its "is running" line. `viaNpm` runs `npm start` in a
 * process group of its own, as a terminal would, so a test can press Ctrl-C on the group.
 */
export async function startRuntime(env: Record<string, string>, options: { viaNpm?: boolean; root?: string; nodeArgs?: string[] } = {}): Promise<Runtime> {
  const root = options.root ?? repoRoot;
  const [command, args] = options.viaNpm
    ? ['npm', ['start']]
    : [join(root, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', ...(options.nodeArgs ?? []), 'local/start.ts']];
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.viaNpm ?? false,
  });
  if (options.viaNpm) groupLeaders.add(child);
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the runtime did not start: ${output}`)), 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /is running at (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`the runtime exited (${code}): ${output}`)));
  });
  return { child, baseUrl, output: () => output };
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/** Runtimes started as a terminal would start them: the leaders of their own process group. */
const groupLeaders = new WeakSet<ChildProcess>();

/**
 * SIGKILLs the runtime (with `npm start`, its whole process group, as a closed terminal
 * would) and waits until every process it had started has ended by itself, so a caller may
 * delete the data folder: DynamoDB Local, whose watchdog notices the loss of its parent,
 * would otherwise still be writing into it.
 */
export async function killRuntime(child: ChildProcess): Promise<void> {
  const family = child.pid ? descendants(child.pid).map((p) => p.pid) : [];
  const done = exited(child);
  if (groupLeaders.has(child) && child.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has ended already.
    }
  } else child.kill('SIGKILL');
  await done;
  const left = await waitUntilGone(family);
  if (left.length > 0) throw new Error(`still running 15 s after the runtime was killed: ${left.join(', ')}`);
}

/** The pids still alive once they have all ended, or after 15 s. */
export const waitUntilGone = (pids: number[]) =>
  eventually(
    () => pids.filter(isAlive),
    (alive) => alive.length === 0,
    { timeoutMs: 15_000, everyMs: 100 },
  );

/** Every live descendant of `pid` with its command line (Linux /proc). */
export function descendants(pid: number): { pid: number; command: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces; the parent pid follows it.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const found: { pid: number; command: string }[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    found.push({ pid: next, command: commandLine(next) });
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers signal 0; it has ended all the same.
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}
