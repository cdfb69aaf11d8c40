import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '#shared/http/limits.ts';
import { requestLimits } from '#shared/http/middleware/request-limits.ts';
import { chain, withState } from './chain.ts';

const run = (body: Buffer, contentType?: string) => chain([withState({ body, headers: contentType ? { 'content-type': contentType } : {} }), requestLimits])();

describe('the request limits middleware', () => {
  it('refuses a body over 2 MiB with 413 before anything reads it', async () => {
    await expect(run(Buffer.alloc(MAX_BODY_BYTES + 1), 'application/json')).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(run(Buffer.alloc(MAX_BODY_BYTES), 'application/json')).resolves.toMatchObject({ statusCode: 200 });
  });

  it('refuses a body that is not declared as JSON with 415, and lets a request without a body through', async () => {
    await expect(run(Buffer.from('{}'), 'text/plain')).rejects.toMatchObject({ code: 'unsupported_media_type' });
    await expect(run(Buffer.from('{}'), 'Application/JSON; charset=utf-8')).resolves.toMatchObject({ statusCode: 200 });
    await expect(run(Buffer.alloc(0))).resolves.toMatchObject({ statusCode: 200 });
  });
});
