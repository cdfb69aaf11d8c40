/**
 * One webhook POST: to an address checked beforehand (the connection is pinned to it, so a
 * DNS answer cannot change between check and connect), no redirects followed, 5 s to
 * connect and 15 s in total, at most 64 KiB of the response read.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

export const RESPONSE_READ_LIMIT = 64 * 1024;

export interface PostResult {
  statusCode: number | null;
  /**
   * What partners see: `timeout` or `connection_failed`, never the network's own code, so the
   * delivery log cannot tell a closed port from a filtered one or a TLS failure.
   */
  error: 'timeout' | 'connection_failed' | null;
  /** The precise cause, for the service's own log only. */
  cause?: string;
  responseExcerpt: string;
}

export function postPinned(
  url: URL,
  pinned: { address: string; family: number },
  headers: Record<string, string>,
  body: string,
  timeouts: { connectMs: number; totalMs: number },
): Promise<PostResult> {
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      clearTimeout(connect);
      resolve(result);
    };
    const req = send(url, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        'User-Agent': 'commerce-interface-webhooks/1',
      },
      lookup,
      agent: false,
    });
    const total = setTimeout(() => {
      req.destroy();
      finish({ statusCode: null, error: 'timeout', responseExcerpt: '' });
    }, timeouts.totalMs);
    const connect = setTimeout(() => {
      req.destroy();
      finish({ statusCode: null, error: 'timeout', cause: 'connect_timeout', responseExcerpt: '' });
    }, timeouts.connectMs);
    req.on('socket', (socket) => socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connect)));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= RESPONSE_READ_LIMIT) chunks.push(chunk);
        else res.destroy();
      });
      const done = () => finish({ statusCode: res.statusCode ?? null, error: null, responseExcerpt: Buffer.concat(chunks).toString('utf8') });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ statusCode: null, error: 'connection_failed', cause: error.code ?? error.name, responseExcerpt: '' }),
    );
    req.end(body);
  });
}
