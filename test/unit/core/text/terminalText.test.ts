import * as assert from 'node:assert/strict';
import { terminalSafe } from '../../../../src/core/text/terminalText';

describe('terminal-safe text', () => {
  it('leaves plain text, newlines, tabs and CRLF line ends as they are', () => {
    const text = 'Pages used: [[intro]] 0.8 · café — ünïcode\n\tindented\r\nnext line';
    assert.equal(terminalSafe(text), text);
  });

  it('writes out an OSC 52 clipboard sequence instead of sending it', () => {
    assert.equal(terminalSafe('a\x1b]52;c;cm0gLXJmIH4=\x07b'), String.raw`a\x1b]52;c;cm0gLXJmIH4=\x07b`);
  });

  it('writes out an erase-line and a lone carriage return that would hide a line', () => {
    assert.equal(terminalSafe('rm -rf ~\x1b[2K\rls'), String.raw`rm -rf ~\x1b[2K\x0dls`);
    assert.equal(terminalSafe('ok\rfake'), String.raw`ok\x0dfake`);
  });

  it('writes out C1 controls and DEL', () => {
    assert.equal(terminalSafe('\u009b2J\u0085\x7f'), String.raw`\u009b2J\u0085\x7f`);
  });

  it('writes out bidi overrides, isolates and marks', () => {
    assert.equal(terminalSafe('user\u202etxt.exe'), String.raw`user\u202etxt.exe`);
    assert.equal(terminalSafe('\u2066\u2069\u200e\u200f\u061c'), String.raw`\u2066\u2069\u200e\u200f\u061c`);
  });

  it('writes out NUL, backspace and other C0 controls', () => {
    assert.equal(terminalSafe('a\x00b\x08c\x0bd\x0ce\x1f'), String.raw`a\x00b\x08c\x0bd\x0ce\x1f`);
  });
});
