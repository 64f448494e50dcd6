// Text from pages, source files and model replies reaches the terminal as it is, where an escape
// sequence could rewrite the screen or set the clipboard (OSC 52), a lone carriage return could
// overwrite a line, and bidi controls could reorder what the reader sees.
const UNSAFE = String.raw`[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)`;
const HAS_UNSAFE = new RegExp(UNSAFE);
const EVERY_UNSAFE = new RegExp(UNSAFE, 'g');

/** `text` with control, escape and bidi characters written out (`\x1b`, `\u009b`, `\u202e`); newlines and tabs kept. */
export function terminalSafe(text: string): string {
  if (!HAS_UNSAFE.test(text)) return text;
  return text.replace(EVERY_UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
