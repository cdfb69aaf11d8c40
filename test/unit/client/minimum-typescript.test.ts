/**
 * The client's stated minimum TypeScript (client/README.md): a partner's program compiles with
 * it against the built package, its own type files and openapi-fetch's checked too (no
 * `skipLibCheck`), and its types are real ones, not `any`: a wrong use is an error.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/paths.ts';

const MINIMUM = '5.4';
/** Installed by its own workspace (test/typescript-minimum), beside the project's own TypeScript. */
const tsc = join(repoRoot, 'test', 'typescript-minimum', 'node_modules', 'typescript', 'bin', 'tsc');

const PROGRAM = `
import { CommerceApiError, createCommerceClient, isTruncated, type WebhookEvent } from '@commerce-interface/client';
const client = createCommerceClient({ baseUrl: 'http://127.0.0.1:3000', keyId: 'key_1', secret: 'secret' });
let newest: string | undefined;
for await (const order of client.orders.list({ limit: 10 })) newest = order.external_order_id;
const order = await client.orders.get('o-1');
const state: string = order.processing_state;
try {
  await client.capabilities.get();
} catch (error) {
  if (error instanceof CommerceApiError) console.log(error.code);
}
declare const event: WebhookEvent;
if (isTruncated(event)) console.log(event.data.reference);
console.log(newest, state);
`;

const work = mkdtempSync(join(tmpdir(), 'client-typescript-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function compile(program: string): { ok: boolean; output: string } {
  writeFileSync(join(work, 'partner.ts'), program);
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'partner.ts'];
  try {
    return { ok: true, output: execFileSync(process.execPath, [tsc, ...args], { cwd: work, encoding: 'utf8' }) };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

describe(`the client on TypeScript ${MINIMUM}`, () => {
  writeFileSync(join(work, 'package.json'), '{ "name": "partner", "private": true, "type": "module" }\n');
  mkdirSync(join(work, 'node_modules', '@commerce-interface'), { recursive: true });
  symlinkSync(join(repoRoot, 'client'), join(work, 'node_modules', '@commerce-interface', 'client'));

  it('is the version the client README states, and the one this test compiles with', () => {
    expect(readFileSync(join(repoRoot, 'client', 'README.md'), 'utf8')).toContain(`TypeScript ${MINIMUM} or later`);
    expect(execFileSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' })).toContain(`Version ${MINIMUM}.`);
  }, 30_000);

  it("compiles a partner's program with every type file checked", () => {
    const { ok, output } = compile(PROGRAM);
    expect(output).toBe('');
    expect(ok).toBe(true);
  }, 60_000);

  it('types what the service answers: a wrong use does not compile', () => {
    const { ok, output } = compile(`${PROGRAM}\nconst wrong: number = order.external_order_id;\nconsole.log(wrong);\n`);
    expect(ok).toBe(false);
    expect(output).toMatch(/partner\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 60_000);
});
