/**
 * What `npm start`'s terminal shows. The handlers run in this process and write what they
 * would write to CloudWatch: Powertools JSON log lines and EMF metric documents. A person
 * reads one short line per request, per webhook attempt and per call attempt, and warnings
 * and errors with their ids; metrics go to a file only when one is named
 * (LOCAL_METRICS_FILE), never to the terminal. LOG_FORMAT=json passes the log lines through
 * as they are, for whoever pipes them into a tool.
 */
import { appendFileSync } from 'node:fs';

export interface TerminalOptions {
  /** `json`: every log line as the handler wrote it. */
  format: 'text' | 'json';
  /** Where EMF metric documents go; dropped when absent. */
  metricsFile?: string | undefined;
}

type LogLine = Record<string, unknown> & { level?: string; message?: string; timestamp?: string };

/** The sandbox CLI's own polling (it names itself in User-Agent) is not traffic anyone made. */
export const SANDBOX_CLI_AGENT = 'commerce-sandbox-cli';

const clock = (line: LogLine) => (typeof line.timestamp === 'string' ? line.timestamp.slice(11, 19) : new Date().toISOString().slice(11, 19));

const SHORT_NAMES: Record<string, string> = { request_id: 'req', correlation_id: 'corr', event_id: 'event' };

const ids = (line: LogLine, names: string[]) =>
  names
    .filter((name) => line[name] !== undefined && line[name] !== null && line[name] !== '')
    .map((name) => `${SHORT_NAMES[name] ?? name}=${String(line[name])}`)
    .join(' ');

const inWords = (seconds: number) =>
  seconds < 90 ? `${Math.round(seconds)} s` : seconds < 5400 ? `${Math.round(seconds / 60)} m` : `${Math.round(seconds / 3600)} h`;

/** The terminal line for one handler log line; undefined for a line nobody needs to read. */
export function terminalLine(line: LogLine): string | undefined {
  const at = clock(line);
  switch (line.message) {
    case 'request completed': {
      if (line.method === 'GET' && String(line.client ?? '').startsWith(SANDBOX_CLI_AGENT)) return undefined;
      const duration = typeof line.duration_ms === 'number' ? ` ${line.duration_ms} ms` : '';
      const path = typeof line.path === 'string' ? line.path : line.route;
      // The correlation id only when the partner sent one (it is the request id otherwise).
      const correlation = line.correlation_id === line.request_id ? [] : ['correlation_id'];
      return `${at} ${line.method ?? ''} ${path} ${line.status}${duration} ${ids(line, ['tenant', 'request_id', ...correlation])}`;
    }
    case 'webhook attempt': {
      const answer = line.status_code ? String(line.status_code) : String(line.error ?? 'no answer');
      const fate =
        line.status === 'delivered'
          ? 'delivered'
          : line.status === 'dead_lettered'
            ? 'dead-lettered'
            : typeof line.retry_in_s === 'number'
              ? `retry in ${inWords(line.retry_in_s)}`
              : String(line.status);
      return `${at} webhook ${line.delivery_id} → ${answer}, ${fate} (attempt ${line.attempt}) ${ids(line, ['tenant', 'event_id', 'correlation_id'])}`;
    }
    case 'call attempt':
      return `${at} call attempt ${line.attempt}: ${line.call_disposition} ${ids(line, ['tenant', 'correlation_id'])}`;
  }
  if (line.level === 'INFO' || line.level === 'DEBUG') return undefined;
  const error = typeof line.error === 'object' && line.error ? (line.error as { name?: string }).name : line.error;
  return `${at} ${line.level} ${line.message} ${ids({ ...line, error }, ['tenant', 'route', 'delivery_id', 'error', 'request_id', 'correlation_id'])}`.trimEnd();
}

const isMetricDocument = (value: unknown): boolean => typeof value === 'object' && value !== null && '_aws' in value;

/**
 * Routes what the handlers write (Powertools writes INFO to stdout, WARN and ERROR to stderr;
 * metrics to stdout): metric documents to the metrics file (or nowhere), log lines as
 * terminal lines (or as they are in JSON mode), anything else as it is, on the stream it came on.
 */
export function installTerminal(options: TerminalOptions): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (text: string) => boolean;
    let pending = '';
    const route = (text: string) => {
      const parsed = parsedJson(text);
      if (isMetricDocument(parsed)) {
        if (options.metricsFile) appendFileSync(options.metricsFile, `${text}\n`);
        return;
      }
      if (options.format === 'json' || typeof (parsed as LogLine | undefined)?.message !== 'string') return void write(`${text}\n`);
      const line = terminalLine(parsed as LogLine);
      if (line) write(`${line}\n`);
    };
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
        route(pending.slice(0, end));
        pending = pending.slice(end + 1);
      }
      (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof stream.write;
  }
}

function parsedJson(text: string): unknown {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
