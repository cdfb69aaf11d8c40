/**
 * `npm start` that cannot start says why in one line and exits 1, without a stack trace and
 * without waiting on a DynamoDB Local that will never answer: no Java or too old a one, a port
 * that is no port or is taken, a data folder another `npm start` holds, a damaged data folder.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '#local/processes.ts';
import { repoRoot } from '../support/paths.ts';

const scratch = mkdtempSync(join(tmpdir(), 'commerce-start-up-'));
let folders = 0;
const dataFolder = () => {
  const dir = join(scratch, `data-${++folders}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/** A PATH holding only a `java` that prints `versionLine` as `java -version` does (or no java at all). */
function pathWithJava(versionLine?: string): string {
  const dir = join(scratch, `bin-${++folders}`);
  mkdirSync(dir);
  if (versionLine) {
    writeFileSync(join(dir, 'java'), `#!/bin/sh\necho '${versionLine}' >&2\n`);
    chmodSync(join(dir, 'java'), 0o755);
  }
  return dir;
}

/** `npm start`'s entry point with `env`; what it printed on stderr and how it ended (killed after 60 s). */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(repoRoot, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', 'local/start.ts'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', LOCAL_DATA_DIR: dataFolder(), ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Exit 1 and exactly one `npm start:` line matching `expected`, with no stack frame anywhere. */
function expectOneLine(answer: { code: number | null; stderr: string }, expected: RegExp) {
  const lines = answer.stderr.split('\n').filter((line) => line.startsWith('npm start:'));
  expect({ code: answer.code, lines, stackFrames: /^\s+at /m.test(answer.stderr) }).toEqual({
    code: 1,
    lines: [expect.stringMatching(expected)],
    stackFrames: false,
  });
}

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

describe('npm start that cannot start', () => {
  it('names Java 17 as what is missing when there is no java on the PATH, before anything starts', async () => {
    expectOneLine(
      await start({ PATH: pathWithJava(), PORT: String(await freePort()) }),
      /needs Java 17 or later, and there is no `java` on the PATH: install it/,
    );
  });

  it('names the version of a java older than 17', async () => {
    const path = pathWithJava('openjdk version "11.0.21" 2023-10-17');
    expectOneLine(await start({ PATH: path, PORT: String(await freePort()) }), /needs Java 17 or later, and the `java` on the PATH is Java 11/);
    const java8 = pathWithJava('java version "1.8.0_392"');
    expectOneLine(await start({ PATH: java8, PORT: String(await freePort()) }), /is Java 8:/);
  });

  it.each(['abc', '70000', '0', '-1', '3000x'])('refuses PORT=%s with the command to give a port', async (port) => {
    expectOneLine(await start({ PORT: port }), new RegExp(`^npm start: PORT=${port} is not a port: .*for example PORT=3001 npm start$`));
  });

  it('says a taken port is taken and which port to try instead', async () => {
    const server = createServer();
    servers.push(server);
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    expectOneLine(
      await start({ PORT: String(port) }),
      new RegExp(`port ${port} is taken by another program: choose another, for example PORT=${port + 1} npm start`),
    );
  });

  it('refuses a data folder another npm start holds, naming its pid and port', async () => {
    const dir = dataFolder();
    // This test's own process stands in for the other npm start: it is alive.
    writeFileSync(join(dir, 'npm-start.lock'), JSON.stringify({ pid: process.pid, port: 4321 }));
    expectOneLine(
      await start({ LOCAL_DATA_DIR: dir, PORT: String(await freePort()) }),
      new RegExp(
        `${dir} is the data folder of another npm start \\(pid ${process.pid}, port 4321\\): stop that one, or give this one its own, for example LOCAL_DATA_DIR=`,
      ),
    );
  });

  it('says which folder to delete when DynamoDB Local cannot read its data', async () => {
    const dir = dataFolder();
    mkdirSync(join(dir, 'dynamodb'));
    writeFileSync(join(dir, 'dynamodb', 'shared-local-instance.db'), Buffer.alloc(20_000, 'not a database '));
    const answer = await start({ LOCAL_DATA_DIR: dir, PORT: String(await freePort()) });
    expectOneLine(answer, new RegExp(`DynamoDB Local cannot read its data in ${join(dir, 'dynamodb')} \\(damaged\\): delete that folder to start afresh`));
    expect(answer.stderr).toContain('starting DynamoDB Local and the SQS emulator…');
  });
});
