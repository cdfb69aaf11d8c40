/**
 * The dialog function the contact flow invokes once per turn (Amazon Connect's ContactFlowEvent,
 * answered as a STRING_MAP within the flow's 8 s). Its failure makes the flow hang up; the
 * attempt is then answered without a decision and retried.
 */
import type { ConnectContactFlowEvent } from 'aws-lambda';
import { dynamoContactMap } from '#shared/calls/connect/contact-store.ts';
import { type FlowTurnAnswer, type FlowTurnPorts, flowTurn } from '#shared/calls/connect/flow-turns.ts';
import { logger } from '#shared/logging/logger.ts';
import { processing } from '../order-processing.ts';

const ports: FlowTurnPorts = { contacts: dynamoContactMap, scriptOf: processing.scriptOf };

export const handler = async (event: ConnectContactFlowEvent): Promise<FlowTurnAnswer> => {
  const contact = event.Details.ContactData;
  try {
    return await flowTurn(ports, { contactId: contact.ContactId, attributes: contact.Attributes ?? {}, parameters: event.Details.Parameters ?? {} });
  } catch (error) {
    // The contact id only: the customer's number and what they pressed stay out of the logs.
    logger.error('a turn of the call dialog failed; the flow hangs up', { contact_id: contact.ContactId, error: (error as Error).name });
    throw error;
  }
};
