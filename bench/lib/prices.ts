/**
 * AWS list prices the cost model uses: one small table, with its date and region.
 * us-east-1, on-demand, as listed on 2026-11-22.
 */
export const PRICES = {
  date: '2026-11-22',
  region: 'us-east-1',
  apiGatewayRestPerMillion: 3.5,
  apiGatewayHttpPerMillion: 1.0,
  lambdaRequestsPerMillion: 0.2,
  lambdaArmGbSecond: 0.0000133334,
  dynamoWritePerMillionUnits: 0.625,
  dynamoReadPerMillionUnits: 0.125,
  sqsPerMillionRequests: 0.4,
  /** Amazon Connect's voice usage per minute ("standard telephony rates apply" on top). */
  connectVoicePerMinute: 0.038,
  /**
   * The carrier's outbound rate per minute: a parameter, not a list price (it depends on the
   * destination country and the number type). CALL_TELEPHONY_USD_PER_MINUTE sets it.
   */
  telephonyPerMinute: Number(process.env.CALL_TELEPHONY_USD_PER_MINUTE ?? 0.01),
  /** Events from AWS services on the default bus are delivered to rules at no charge. */
  eventBridgeAwsServiceEventsPerMillion: 0,
};

export interface RequestCost {
  readUnits: number;
  writeUnits: number;
  handlerMs: number;
  sqsRequests?: number;
}

/** USD per million calls of one endpoint: API Gateway REST, Lambda (requests and GB-seconds at `memoryMb`), DynamoDB, SQS. */
export function usdPerMillion(c: RequestCost, memoryMb: number): number {
  const lambdaSeconds = Math.max(1, Math.ceil(c.handlerMs)) / 1000; // billed per millisecond
  return (
    PRICES.apiGatewayRestPerMillion +
    PRICES.lambdaRequestsPerMillion +
    lambdaSeconds * (memoryMb / 1024) * PRICES.lambdaArmGbSecond * 1e6 +
    c.writeUnits * PRICES.dynamoWritePerMillionUnits +
    c.readUnits * PRICES.dynamoReadPerMillionUnits +
    (c.sqsRequests ?? 0) * PRICES.sqsPerMillionRequests
  );
}
