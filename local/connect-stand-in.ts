/**
 * A stand-in for Amazon Connect's API on loopback, speaking its REST JSON protocol to the real
 * `@aws-sdk/client-connect` (pointed at it by `CONNECT_ENDPOINT`) for the four calls the live
 * call platform makes: StartOutboundVoiceContact, StopContact, DescribeContact and
 * UpdateContactAttributes. It refuses what Connect refuses:
 * - every request checked against Connect's API model (connect-api-model.ts): a missing required
 *   member, a length, range, pattern or value outside the model is 400 InvalidParameterException;
 * - the instance's quota of concurrent active calls (10 by default, "Amazon Connect service
 *   quotas"): a dial beyond it is 429 LimitExceededException;
 * - the instance's country allowlist, deny-by-default (admin guide, "Countries you can call by
 *   default"): a number of a country not on it is 403 DestinationNotAllowedException;
 * - Connect's dial rate where a test sets one: 429 ThrottlingException.
 * It keeps its contacts in memory and lets a test end them as the telephone network would, and count stops.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { CONNECT_ERRORS, type ConnectOperation, modelViolation } from './connect-api-model.ts';

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
  /** The instance's quota of concurrent active calls: a dial while this many contacts are active is refused. */
  concurrentCalls: number;
  /** The countries (ISO codes) the instance may call: any other number is refused. */
  allowedCountries: ReadonlySet<string>;
  /** Contacts not yet disconnected, and the most there ever were at once. */
  inFlight(): number;
  readonly peakInFlight: number;
  /** Every request refused, by Connect's error name. */
  readonly refusals: Readonly<Record<string, number>>;
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
  refuse(response: ServerResponse, error: keyof typeof CONNECT_ERRORS, message: string): void;
  /** Why Connect would refuse to place this dial now (its quota, its allowlist), if it would. */
  dialRefusal(destination: string): { error: keyof typeof CONNECT_ERRORS; message: string } | undefined;
}

/** The request's members the model refuses, answered as Connect does. */
function refusedByModel(state: StandInState, operation: ConnectOperation, input: Record<string, unknown>, response: ServerResponse): boolean {
  const violation = modelViolation(operation, input);
  if (violation) state.refuse(response, 'InvalidParameterException', violation);
  return violation !== undefined;
}

function startOutbound(state: StandInState, body: Record<string, unknown>, response: ServerResponse): void {
  if (refusedByModel(state, 'StartOutboundVoiceContact', body, response)) return;
  if (state.throttled()) {
    state.refuse(response, 'ThrottlingException', 'Rate exceeded');
    return;
  }
  // A client token is idempotent only while its contact lives: sent again after it ended, it dials again.
  const token = typeof body.ClientToken === 'string' ? body.ClientToken : undefined;
  const live = token ? state.contacts.get(state.byToken.get(token) ?? '') : undefined;
  if (live && live.disconnectedAt === undefined) {
    answer(response, 200, { ContactId: live.id });
    return;
  }
  const refusal = state.dialRefusal(String(body.DestinationPhoneNumber));
  if (refusal) {
    state.refuse(response, refusal.error, refusal.message);
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
    const body = await readJson(request);
    if (refusedByModel(state, 'StopContact', body, response)) return;
    const contact = found(body.ContactId);
    if (!contact) return state.refuse(response, 'ContactNotFoundException', 'Contact not found');
    contact.stops++;
    if (contact.disconnectedAt === undefined) Object.assign(contact, { disconnectedAt: Date.now(), disconnectReason: 'API' });
    return answer(response, 200, {});
  }
  if (request.method === 'POST' && path === '/contact/attributes') {
    const body = await readJson(request);
    if (refusedByModel(state, 'UpdateContactAttributes', body, response)) return;
    const contact = found(body.InitialContactId);
    if (!contact) return state.refuse(response, 'ResourceNotFoundException', 'Contact not found');
    Object.assign(contact.attributes, body.Attributes as Record<string, string>);
    return answer(response, 200, {});
  }
  const describe = /^\/contacts\/([^/]+)\/([^/]+)$/.exec(path);
  if (request.method === 'GET' && describe) {
    const input = { InstanceId: decodeURIComponent(describe[1]!), ContactId: decodeURIComponent(describe[2]!) };
    if (refusedByModel(state, 'DescribeContact', input, response)) return;
    const contact = found(input.ContactId);
    if (!contact) return state.refuse(response, 'ResourceNotFoundException', 'Contact not found');
    return answer(response, 200, describeContact(contact));
  }
  answer(response, 404, { message: `no such operation: ${request.method} ${path}` }, 'UnknownOperationException');
}

export interface StandInOptions {
  /** The instance's quota of concurrent active calls (Connect's default: 10). */
  concurrentCalls?: number;
  /** The countries the instance may call (an allowlist: deny-by-default). */
  allowedCountries?: Iterable<string>;
}

/** How the telephone network moves a contact on: it reaches the flow, and it ends. */
function networkEnds(contacts: Map<string, StandInContact>): Pick<ConnectStandIn, 'connect' | 'finish'> {
  const contactOf = (contactId: string) => {
    const contact = contacts.get(contactId);
    if (!contact) throw new Error(`no contact ${contactId}`);
    return contact;
  };
  return {
    connect(contactId, detection) {
      Object.assign(contactOf(contactId), { connectedAt: Date.now(), ...(detection ? { detection } : {}) });
    },
    finish(contactId, outcome) {
      const contact = contactOf(contactId);
      const at = Date.now();
      Object.assign(contact, {
        ...(outcome.connected && contact.connectedAt === undefined ? { connectedAt: at } : {}),
        disconnectedAt: at,
        disconnectReason: outcome.disconnectReason,
        ...(outcome.detection ? { detection: outcome.detection } : {}),
      });
    },
  };
}

/** Connect's default quota of concurrent active calls per instance. */
const DEFAULT_CONCURRENT_CALLS = 10;

export async function startConnectStandIn(options: StandInOptions = {}): Promise<ConnectStandIn> {
  let nextThrottled = 0;
  let throttledDials = 0;
  let peakInFlight = 0;
  const refusals: Record<string, number> = {};
  const active = () => [...state.contacts.values()].filter((c) => c.disconnectedAt === undefined).length;
  const window = { second: 0, dials: 0 };
  let standIn: ConnectStandIn | undefined;
  const overRate = () => {
    const second = Math.floor(Date.now() / 1000);
    if (second !== window.second) Object.assign(window, { second, dials: 0 });
    window.dials++;
    return standIn?.dialsPerSecond !== undefined && window.dials > standIn.dialsPerSecond;
  };
  const state: StandInState = {
    placed: (contact) => {
      peakInFlight = Math.max(peakInFlight, active());
      standIn?.onDial?.(contact);
    },
    refuse(response, error, message) {
      refusals[error] = (refusals[error] ?? 0) + 1;
      answer(response, CONNECT_ERRORS[error], { message }, error);
    },
    dialRefusal(destination) {
      if (active() >= standIn!.concurrentCalls) return { error: 'LimitExceededException', message: 'The concurrent active calls quota is reached' };
      const country = parsePhoneNumberFromString(destination)?.country;
      if (!country || !standIn!.allowedCountries.has(country))
        return { error: 'DestinationNotAllowedException', message: 'Outbound calls to the destination number are not allowed' };
      return undefined;
    },
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
    handle(state, request, response).catch(() => state.refuse(response, 'InvalidRequestException', 'The request is not valid'));
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
    concurrentCalls: options.concurrentCalls ?? DEFAULT_CONCURRENT_CALLS,
    allowedCountries: new Set(options.allowedCountries ?? []),
    inFlight: active,
    get peakInFlight() {
      return peakInFlight;
    },
    refusals,
    ...networkEnds(state.contacts),
    throttleNextDials(count) {
      nextThrottled = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return standIn;
}
