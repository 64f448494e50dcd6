import { terminalSafe } from '../core/text/terminalText';

/** Where a command prints: `out` is stdout (results), `err` is stderr (progress, problems). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Writes without a newline, for streaming; optional for callers that only collect lines. */
  write?(text: string): void;
}

/** Every line the CLI prints goes through here: page titles, file names and model replies may carry escape sequences. */
export function escapedIo(io: Io): Io {
  return {
    out: (text) => io.out(terminalSafe(text)),
    err: (text) => io.err(terminalSafe(text)),
    ...(io.write ? { write: (text: string) => io.write!(terminalSafe(text)) } : {}),
  };
}
