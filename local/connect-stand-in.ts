/**
 * A stand-in for Amazon Connect's API on loopback, speaking its REST JSON protocol to the real
 * `@aws-sdk/client-connect` (pointed at it by `CONNECT_ENDPOINT`) for the four calls the live
 * call platform makes: StartOutboundVoiceContact, StopContact, DescribeContact and
 * UpdateContactAttributes. It keeps its contacts in memory and lets a test end them as the
 * telephone network would, throttle dials as Connect's account quota does, and count stops.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInContact {
  id: string;
  instanceId: string;
  destination: string;
  source: string | undefined;
  clientToken: string | undefined;
  attributes: Record<string, string>;
  trafficType: string | undefined;
  initiatedAt: number;
  connectedAt?: number;
  disconnectedAt?: number;
  disconnectReason?: string;
  detection?: string;
  stops: number;
}

export interface ConnectStandIn {
  endpoint: string;
  contacts: Map<string, StandInContact>;
  /** Called once for each contact a dial placed: the telephone network and the flow take it from there. */
  onDial: ((contact: StandInContact) => void) | undefined;
  /** The contact reached the flow (media established), with what answering-machine detection made of it. */
  connect(contactId: string, detection?: string): void;
  /** Ends a contact as the network would: connected or not, with Connect's codes. */
  finish(contactId: string, outcome: { connected: boolean; disconnectReason: string; detection?: string }): void;
  /** How long a dial's answer takes (the contact is placed first): a test's cancel can race it. */
  dialAnswerDelayMs: number;
  /** Connect's account throttle: dials beyond this many in one second are refused (none: no limit). */
  dialsPerSecond: number | undefined;
  /** Dials refused as throttled so far. */
  readonly throttledDials: number;
  /** The next `count` dials are throttled, whatever the time (a deterministic throttle for tests). */
  throttleNextDials(count: number): void;
  close(): Promise<void>;
}

const seconds = (ms: number) => ms / 1000;

function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
      } catch (error) {
        reject(error);
      }
    });
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, status: number, body: unknown, errorType?: string): void {
  response.writeHead(status, { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
  response.end(JSON.stringify(body));
}

interface StandInState {
  contacts: Map<string, StandInContact>;
  byToken: Map<string, string>;
  throttled(): boolean;
  placed(contact: StandInContact): void;
  answerDelayMs(): number;
}

function startOutbound(state: StandInState, body: Record<string, unknown>, response: ServerResponse): void {
  if (state.throttled()) {
    answer(response, 429, { message: 'Rate exceeded' }, 'ThrottlingException');
    return;
  }
  // A client token is idempotent only while its contact lives: sent again after it ended, it dials again.
  const token = typeof body.ClientToken === 'string' ? body.ClientToken : undefined;
  const live = token ? state.contacts.get(state.byToken.get(token) ?? '') : undefined;
  if (live && live.disconnectedAt === undefined) {
    answer(response, 200, { ContactId: live.id });
    return;
  }
  const contact: StandInContact = {
    id: randomUUID(),
    instanceId: String(body.InstanceId),
    destination: String(body.DestinationPhoneNumber),
    source: typeof body.SourcePhoneNumber === 'string' ? body.SourcePhoneNumber : undefined,
    clientToken: token,
    attributes: { ...(body.Attributes as Record<string, string> | undefined) },
    trafficType: typeof body.TrafficType === 'string' ? body.TrafficType : undefined,
    initiatedAt: Date.now(),
    stops: 0,
  };
  state.contacts.set(contact.id, contact);
  if (token) state.byToken.set(token, contact.id);
  const delay = state.answerDelayMs();
  setTimeout(() => {
    answer(response, 200, { ContactId: contact.id });
    state.placed(contact);
  }, delay);
}

function describeContact(contact: StandInContact) {
  return {
    Contact: {
      Id: contact.id,
      InitiationMethod: 'API',
      InitiationTimestamp: seconds(contact.initiatedAt),
      ...(contact.connectedAt !== undefined ? { ConnectedToSystemTimestamp: seconds(contact.connectedAt) } : {}),
      ...(contact.disconnectedAt !== undefined ? { DisconnectTimestamp: seconds(contact.disconnectedAt) } : {}),
      ...(contact.disconnectReason ? { DisconnectReason: contact.disconnectReason } : {}),
      ...(contact.detection ? { AnsweringMachineDetectionStatus: contact.detection } : {}),
      Attributes: contact.attributes,
    },
  };
}

async function handle(state: StandInState, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '').split('?')[0]!;
  const found = (id: unknown) => (typeof id === 'string' ? state.contacts.get(id) : undefined);
  if (request.method === 'PUT' && path === '/contact/outbound-voice') return startOutbound(state, await readJson(request), response);
  if (request.method === 'POST' && path === '/contact/stop') {
    const contact = found((await readJson(request)).ContactId);
    if (!contact) return answer(response, 400, { message: 'Contact not found' }, 'ContactNotFoundException');
    contact.stops++;
    if (contact.disconnectedAt === undefined) Object.assign(contact, { disconnectedAt: Date.now(), disconnectReason: 'API' });
    return answer(response, 200, {});
  }
  if (request.method === 'POST' && path === '/contact/attributes') {
    const body = await readJson(request);
    const contact = found(body.InitialContactId);
    if (!contact) return answer(response, 400, { message: 'Contact not found' }, 'ResourceNotFoundException');
    Object.assign(contact.attributes, body.Attributes as Record<string, string>);
    return answer(response, 200, {});
  }
  const describe = /^\/contacts\/([^/]+)\/([^/]+)$/.exec(path);
  if (request.method === 'GET' && describe) {
    const contact = found(decodeURIComponent(describe[2]!));
    if (!contact) return answer(response, 404, { message: 'Contact not found' }, 'ResourceNotFoundException');
    return answer(response, 200, describeContact(contact));
  }
  answer(response, 404, { message: `no such operation: ${request.method} ${path}` }, 'UnknownOperationException');
}

export async function startConnectStandIn(): Promise<ConnectStandIn> {
  let nextThrottled = 0;
  let throttledDials = 0;
  const window = { second: 0, dials: 0 };
  let standIn: ConnectStandIn | undefined;
  const overRate = () => {
    const second = Math.floor(Date.now() / 1000);
    if (second !== window.second) Object.assign(window, { second, dials: 0 });
    window.dials++;
    return standIn?.dialsPerSecond !== undefined && window.dials > standIn.dialsPerSecond;
  };
  const state: StandInState = {
    placed: (contact) => standIn?.onDial?.(contact),
    answerDelayMs: () => standIn?.dialAnswerDelayMs ?? 0,
    contacts: new Map(),
    byToken: new Map(),
    throttled() {
      const refused = nextThrottled > 0 || overRate();
      if (nextThrottled > 0) nextThrottled--;
      if (refused) throttledDials++;
      return refused;
    },
  };
  const server = createServer((request, response) => {
    handle(state, request, response).catch(() => answer(response, 400, { message: 'bad request' }, 'InvalidRequestException'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  standIn = {
    endpoint: `http://127.0.0.1:${port}`,
    contacts: state.contacts,
    onDial: undefined,
    dialAnswerDelayMs: 0,
    dialsPerSecond: undefined,
    get throttledDials() {
      return throttledDials;
    },
    connect(contactId, detection) {
      const contact = state.contacts.get(contactId);
      if (!contact) throw new Error(`no contact ${contactId}`);
      Object.assign(contact, { connectedAt: Date.now(), ...(detection ? { detection } : {}) });
    },
    finish(contactId, outcome) {
      const contact = state.contacts.get(contactId);
      if (!contact) throw new Error(`no contact ${contactId}`);
      const at = Date.now();
      Object.assign(contact, {
        ...(outcome.connected && contact.connectedAt === undefined ? { connectedAt: at } : {}),
        disconnectedAt: at,
        disconnectReason: outcome.disconnectReason,
        ...(outcome.detection ? { detection: outcome.detection } : {}),
      });
    },
    throttleNextDials(count) {
      nextThrottled = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return standIn;
}
