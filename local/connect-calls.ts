/**
 * The telephone network and Connect's flow engine behind the local stand-in: each contact a dial
 * places rings, is answered (or not) by the sandbox scenario's simulated customer of its number,
 * runs the deployed flow JSON with the interpreter (invoking the dialog function as Connect
 * does), and ends; its contact events go to EventBridge through the real SDK client, as Connect
 * publishes them. The customer's behaviour follows the number's last digit and how often that
 * number has been rung, as the sandbox's does by attempt.
 *
 * Its switches make the events as unreliable as the documentation allows: dropped, duplicated,
 * delayed and reordered; tests and the chaos suite set them.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { ConnectContactFlowEvent } from 'aws-lambda';
import { type CustomerBehaviour, keyFor, sandboxCustomer } from '#shared/calls/simulated-customer.ts';
import { type CallStatus, type FlowDocument, runFlow } from './connect-flow.ts';
import type { ConnectStandIn, StandInContact } from './connect-stand-in.ts';

export interface EventFaults {
  /** Share of contact events never published. */
  drop: number;
  /** Share of contact events published twice. */
  duplicate: number;
  /** Each contact's events are published this long after they happen. */
  delayMs: number;
  /** Share of contacts whose end events are published last first. */
  reorder: number;
}

export interface CallTiming {
  /** How long a dialled number rings before it is answered or not. */
  ringMs: number;
  /** How long each thing said takes (a long one keeps the customer on the line for a test's cancel). */
  speechMs: number;
}

export interface SimulatedCalls {
  faults: EventFaults;
  timing: CallTiming;
  /** A test's customers, by number: how they behave in place of the sandbox scenario of their last digit (a silent one, a mailbox). */
  readonly customers: Map<string, CustomerBehaviour>;
  /** What each contact's customer heard (in which voice) and pressed, by contact id (the dialog's words, never a number). */
  readonly heard: Map<string, { said: string[]; voices: string[]; pressed: (string | null)[] }>;
  /** Calls still being played. */
  inFlight(): number;
  stop(): void;
}

const NO_FAULTS: EventFaults = { drop: 0, duplicate: 0, delayMs: 0, reorder: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function contactDetail(contact: StandInContact, eventType: string, instanceArn: string): Record<string, unknown> {
  return {
    eventType,
    contactId: contact.id,
    initialContactId: contact.id,
    channel: 'VOICE',
    instanceArn,
    initiationMethod: 'API',
    initiationTimestamp: iso(contact.initiatedAt),
    ...(contact.connectedAt !== undefined ? { connectedToSystemTimestamp: iso(contact.connectedAt) } : {}),
    ...(contact.disconnectedAt !== undefined ? { disconnectTimestamp: iso(contact.disconnectedAt), disconnectReason: contact.disconnectReason } : {}),
    ...(contact.detection ? { answeringMachineDetectionStatus: contact.detection } : {}),
  };
}

/** The network's end of a call the customer never took: Connect's disconnect reasons. */
const UNANSWERED_REASONS = { no_answer: 'TELECOM_UNANSWERED', busy: 'TELECOM_BUSY', invalid_number: 'TELECOM_NUMBER_INVALID' } as const;

interface CallNetworkOptions {
  standIn: ConnectStandIn;
  flow: FlowDocument;
  instanceArn: string;
  eventsEndpoint: string;
  region: string;
  invokeDialog: (functionArn: string, event: ConnectContactFlowEvent, timeLimitMs: number) => Promise<unknown>;
  log: (line: string) => void;
  /** Counts a fault the switches injected, by kind. */
  onFault: (kind: string) => void;
}

/** What the network's calls share: its options, its switches, and the bus client its events go through. */
interface Network {
  options: CallNetworkOptions;
  simulated: SimulatedCalls;
  events: EventBridgeClient;
  rings: Map<string, number>;
  stopped: () => boolean;
}

/** Publishes a contact's events as they stand now, through the switches' drops, duplicates, delay and order. */
async function publish(network: Network, contact: StandInContact, types: string[]): Promise<void> {
  const { faults } = network.simulated;
  const snapshots = types.map((type) => contactDetail(contact, type, network.options.instanceArn));
  const reordered = snapshots.length > 1 && Math.random() < faults.reorder;
  if (reordered) network.options.onFault('contact-events:reordered');
  const ordered = reordered ? snapshots.reverse() : snapshots;
  if (faults.delayMs) await sleep(faults.delayMs);
  for (const detail of ordered) {
    if (Math.random() < faults.drop) {
      network.options.onFault('contact-events:dropped');
      continue;
    }
    const copies = Math.random() < faults.duplicate ? 2 : 1;
    if (copies > 1) network.options.onFault('contact-events:duplicated');
    for (let i = 0; i < copies && !network.stopped(); i++)
      await network.events.send(
        new PutEventsCommand({
          Entries: [
            {
              Source: 'aws.connect',
              DetailType: 'Amazon Connect Contact Event',
              Detail: JSON.stringify(detail),
              Resources: [`${network.options.instanceArn}/contact/${contact.id}`],
            },
          ],
        }),
      );
  }
}

/** The flow with a customer who wants `wants`: what they hear is kept, what they press follows the keys the words offer. */
async function converse(network: Network, contact: StandInContact, wants: Parameters<typeof keyFor>[0], callStatus: CallStatus | undefined): Promise<void> {
  const transcript = { said: [] as string[], voices: [] as string[], pressed: [] as (string | null)[] };
  network.simulated.heard.set(contact.id, transcript);
  const say = async (text: string, voice: string) => {
    if (text) {
      transcript.said.push(text);
      transcript.voices.push(voice);
    }
    await sleep(network.simulated.timing.speechMs);
  };
  await runFlow(network.options.flow, {
    invoke: (arn, event, limitMs) => network.options.invokeDialog(arn, event, limitMs),
    contactData: {
      Attributes: contact.attributes,
      Channel: 'VOICE',
      ContactId: contact.id,
      InitialContactId: contact.id,
      PreviousContactId: contact.id,
      InitiationMethod: 'API',
      InstanceARN: network.options.instanceArn,
      CustomerEndpoint: { Address: contact.destination, Type: 'TELEPHONE_NUMBER' },
      SystemEndpoint: contact.source ? { Address: contact.source, Type: 'TELEPHONE_NUMBER' } : null,
      Queue: null,
      MediaStreams: { Customer: { Audio: null as never } },
    },
    async input(text, voice, _timeoutSeconds, external) {
      await say(text, voice);
      const key = keyFor(wants, [...(external.keys ?? '')]);
      transcript.pressed.push(key);
      return key;
    },
    say,
    callStatus,
    stopped: () => contact.disconnectedAt !== undefined,
  });
}

/** What answering-machine detection reports to the flow (CheckOutboundCallStatus), from its contact status. */
const CALL_STATUS: Readonly<Record<string, CallStatus>> = {
  HUMAN_ANSWERED: 'CallAnswered',
  VOICEMAIL_BEEP: 'VoicemailBeep',
  VOICEMAIL_NO_BEEP: 'VoicemailNoBeep',
};

/** The customer takes the call or not; a taken call runs the flow (a voicemail greeting takes it too, without detection). */
async function answerOrNot(network: Network, contact: StandInContact, behaviour: CustomerBehaviour): Promise<void> {
  const { standIn } = network.options;
  const campaign = contact.trafficType === 'CAMPAIGN';
  if (behaviour.kind === 'answers' || behaviour.kind === 'voicemail') {
    // A mailbox takes the call as a person does; only campaign traffic's detection tells them apart.
    const detection = campaign ? (behaviour.kind === 'answers' ? 'HUMAN_ANSWERED' : 'VOICEMAIL_BEEP') : undefined;
    standIn.connect(contact.id, detection);
    await publish(network, contact, ['CONNECTED_TO_SYSTEM']);
    await converse(
      network,
      contact,
      behaviour.kind === 'answers' ? behaviour.wants : 'nothing',
      detection ? (CALL_STATUS[detection] ?? 'NotDetected') : undefined,
    );
    if (contact.disconnectedAt === undefined) standIn.finish(contact.id, { connected: true, disconnectReason: 'CONTACT_FLOW_DISCONNECT' });
  } else {
    standIn.finish(contact.id, { connected: false, disconnectReason: UNANSWERED_REASONS[behaviour.kind] });
  }
}

/** One dialled contact, from its ring to its last event. */
async function play(network: Network, contact: StandInContact): Promise<void> {
  const ring = (network.rings.get(contact.destination) ?? 0) + 1;
  network.rings.set(contact.destination, ring);
  await sleep(network.simulated.timing.ringMs);
  try {
    const behaviour = network.simulated.customers.get(contact.destination) ?? sandboxCustomer(contact.destination, ring);
    if (contact.disconnectedAt === undefined) await answerOrNot(network, contact, behaviour);
  } finally {
    // Whatever went wrong in the flow, the contact ends and says so, as Connect's does.
    if (contact.disconnectedAt === undefined)
      network.options.standIn.finish(contact.id, { connected: contact.connectedAt !== undefined, disconnectReason: 'OTHER' });
    await publish(network, contact, ['DISCONNECTED', 'COMPLETED']);
  }
}

export function simulateCalls(options: CallNetworkOptions): SimulatedCalls {
  let playing = 0;
  let stopped = false;
  const simulated: SimulatedCalls = {
    faults: { ...NO_FAULTS },
    timing: { ringMs: 20, speechMs: 5 },
    customers: new Map(),
    heard: new Map(),
    inFlight: () => playing,
    stop: () => {
      stopped = true;
    },
  };
  const network: Network = {
    options,
    simulated,
    events: new EventBridgeClient({
      endpoint: options.eventsEndpoint,
      region: options.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    rings: new Map(),
    stopped: () => stopped,
  };
  options.standIn.onDial = (contact) => {
    if (stopped) return;
    playing++;
    void publish(network, contact, ['INITIATED'])
      .then(() => play(network, contact))
      .catch((error: unknown) => options.log(`connect stand-in: a call failed: ${(error as Error).message}`))
      .finally(() => playing--);
  };
  return simulated;
}
