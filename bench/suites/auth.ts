/**
 * `auth`: the in-process cost of a request, without DynamoDB calls.
 * (1) authentication against SHA-256 of the body plus one HMAC;
 * (2) parsing and validating a 500-product batch against JSON.parse of the same bytes.
 */

import { execFile } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { BASE_PATH } from '#shared/api/routes.ts';
import { type AuthPorts, authenticate } from '#shared/auth/authenticate.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { pairedMicrosPerCall, progress } from '../lib/measure.ts';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA';
const KEY_ID = 'key_0123456789abcdef01234567';

/** Ports that answer at once, so only the in-process work is measured. */
const ports: AuthPorts = {
  findKey: async () => ({ tenant: 'bench', scopes: ['catalog:write'], secret: SECRET, status: 'active' }),
  claimNonce: async () => true,
  now: () => new Date(),
};

function signedRequest(body: Buffer) {
  const path = `${BASE_PATH}/products/batch`;
  const headers = signRequest({ keyId: KEY_ID, secret: SECRET }, { method: 'POST', path, body, nonce: randomUUID() });
  return { method: 'POST', path, query: null, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])), body };
}

/**
 * Parse and validate against JSON.parse in a fresh process, as a function instance runs it: the
 * heap the bench runner has built (the local stack, the CDK, other suites) is no part of the
 * service's and moved the ratio by a third between runs.
 */
async function validationInItsOwnProcess(variants: number): Promise<{ value: number; floor: number; bytes: number }> {
  const script = new URL('./validation-process.ts', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', script, String(variants)], { encoding: 'utf8' });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { value: number; floor: number; bytes: number };
}

export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const [label, bytes] of [
    ['1 KiB', 1024],
    ['2 MiB', 2 * 1024 * 1024],
  ] as const) {
    progress(`authentication, ${label} body`);
    const body = Buffer.alloc(bytes, 'a');
    const request = signedRequest(body);
    const batch = bytes > 4096 ? 1 : 200;
    const { value, floor } = await pairedMicrosPerCall(
      () => authenticate(request, ports),
      () => {
        createHash('sha256').update(body).digest('hex');
        createHmac('sha256', SECRET).update('x'.repeat(200)).digest('hex');
      },
      { samples: 31, batch },
    );
    figures.push(
      figure({
        suite: 'auth',
        name: `authentication, ${label} body`,
        value,
        unit: 'µs/request',
        floor: { value: floor, label: 'SHA-256 of the body + one HMAC (node:crypto)' },
        ...(bytes > 4096 ? { target: { ratio: 1.2, direction: 'at_most' as const } } : {}),
      }),
    );
  }

  progress('parse and validate a 500-product batch (each in a fresh process)');
  for (const [label, variants] of [
    ['500 × 62 variants (fits 2 MiB)', 62],
    ['500 × 2 variants', 2],
  ] as const) {
    const { value, floor, bytes } = await validationInItsOwnProcess(variants);
    figures.push(
      figure({
        suite: 'auth',
        name: `parse + validate batch, ${label}, ${(bytes / 1024).toFixed(0)} KiB`,
        value,
        unit: 'µs/batch',
        floor: { value: floor, label: 'JSON.parse of the same bytes, in the same process' },
        target: { ratio: 2, direction: 'at_most' },
      }),
    );
  }
  return figures;
}
