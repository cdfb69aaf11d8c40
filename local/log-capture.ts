/**
 * Sends the functions' JSON log lines and embedded-metric-format points to a file instead of the
 * terminal, leaving every other line where it was going: the test run and `npm run bench` print
 * their own progress, and the file can be searched afterwards (no phone numbers, secrets or bodies).
 */
import { closeSync, openSync, writeSync } from 'node:fs';

let capturing: string | undefined;
/** The file JSON lines go to while a capture runs: each function's thread captures its own lines into it (function-worker.ts). */
export const captureFile = (): string | undefined => capturing;

/** Starts capturing; the returned function puts the streams back. */
export function captureJsonLogs(file: string): () => void {
  capturing = file;
  // One descriptor opened for appending: each line is one write, whole, whichever thread writes it.
  const fd = openSync(file, 'a');
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write.bind(stream));
  streams.forEach((stream, i) => {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (!text.startsWith('{"level"') && !text.startsWith('{"_aws"')) return (originals[i] as (...args: unknown[]) => boolean)(chunk, ...rest);
      writeSync(fd, text.endsWith('\n') ? text : `${text}\n`);
      return true;
    }) as typeof stream.write;
  });
  return () => {
    capturing = undefined;
    for (const [i, stream] of streams.entries()) stream.write = originals[i]!;
    closeSync(fd);
  };
}
