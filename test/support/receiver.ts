/** A real HTTP receiver on 127.0.0.1 for webhook tests: scripted answers, every request recorded. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { eventViolations } from './contract.ts';

export type Behaviour = 'ok' | 'fail' | 'sleep' | 'reset' | 'redirect';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** How the receiver answered it ('ok' is a 200 in time). */
  behaviour: Behaviour;
}

export async function startReceiver(
  script: (n: number) => Behaviour,
  // `handMadePayloads`: the test enqueues deliveries of its own bytes, not events the service made, so the contract does not apply.
  options: { sleepMs?: number; delayMs?: number; redirectTo?: string; handMadePayloads?: boolean } = {},
) {
  const received: Received[] = [];
  // Every delivered event is one the contract's webhooks section describes, member for member.
  const violations = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const behaviour = script(received.length + 1);
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body, at: Date.now(), behaviour });
      if (!options.handMadePayloads) for (const violation of eventViolations(body)) violations.add(violation);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (behaviour === 'reset') return req.socket.destroy();
      if (behaviour === 'sleep') return setTimeout(() => res.writeHead(200).end('too late'), options.sleepMs ?? 5000);
      if (behaviour === 'redirect') return res.writeHead(302, { Location: options.redirectTo ?? 'http://127.0.0.1:1/' }).end();
      res.writeHead(behaviour === 'ok' ? 200 : 500, { 'Content-Type': 'text/plain' }).end(behaviour === 'ok' ? 'thanks' : 'receiver error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/hooks/commerce`,
    received,
    /** Stops the receiver; fails when any event it received was outside the contract. */
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      if (violations.size) throw new Error(`events outside the contract: ${[...violations].slice(0, 5).join('; ')}`);
    },
  };
}

/** An endpoint that takes every request and answers none until told to; it counts what is open at once. */
export async function startHangingEndpoint() {
  let answering = false;
  let open = 0;
  let mostOpen = 0;
  let answered = 0;
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    requests++;
    open++;
    mostOpen = Math.max(mostOpen, open);
    res.on('close', () => open--);
    if (answering) {
      answered++;
      res.writeHead(200).end('ok');
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    answer: () => {
      answering = true;
    },
    figures: () => ({ mostOpen, answered, requests }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
