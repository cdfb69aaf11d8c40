/** What the local runtime does to the SDK clients a function builds, beyond its policy and the fault switch. */
import { Agent as HttpAgent } from 'node:http';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/**
 * On AWS every concurrent invocation runs in an instance of its own, with clients (and their
 * pool of 50 sockets) of its own. Here a function's concurrent invocations share one client per
 * service: capped at 50 sockets, 200 concurrent webhook attempts queued the function's other
 * calls behind theirs. The shared clients get sockets without a cap, as the instances together have.
 */
export function unpoolSockets(client: { config: { requestHandler?: unknown } }): void {
  client.config.requestHandler = new NodeHttpHandler({ httpAgent: new HttpAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }) });
}
