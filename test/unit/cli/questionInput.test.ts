import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { combineQuestion, readPiped } from '../../../src/cli/questionInput';

describe('the question of repo-wiki query', () => {
  it('appends piped text to the question after a blank line; "-" asks stdin alone', () => {
    assert.equal(combineQuestion(['review', 'this'], 'diff --git a/x b/x\n+line\n\n'), 'review this\n\ndiff --git a/x b/x\n+line');
    assert.equal(combineQuestion(['-'], 'What is the pipeline?\n'), 'What is the pipeline?');
    assert.equal(combineQuestion(['What', 'is', 'it?'], undefined), 'What is it?');
    assert.equal(combineQuestion(['What is it?'], ' \n\t'), 'What is it?', 'blank input adds nothing');
    assert.equal(combineQuestion(['-'], undefined), '', 'nothing to ask');
    assert.equal(combineQuestion(['-', 'more'], undefined), '- more', '"-" means stdin only when it stands alone');
  });

  it('reads a pipe to its end, however slowly it writes once it has started', async () => {
    const pipe = new PassThrough();
    const reading = readPiped(pipe, 50);
    pipe.write('first ');
    await new Promise((resolve) => setTimeout(resolve, 120)); // past the grace time, but data already came
    pipe.end('second');
    assert.equal(await reading, 'first second');
  });

  it('a pipe that stays silent counts as no input, so an open stdin never hangs the command', async () => {
    const pipe = new PassThrough();
    const started = Date.now();
    assert.equal(await readPiped(pipe, 50), undefined);
    assert.ok(Date.now() - started < 1000);
    assert.ok(pipe.destroyed, 'the silent pipe is let go');
  });

  it('an empty pipe that ends is empty input; with no grace time ("-") it waits for the end', async () => {
    const empty = new PassThrough();
    const reading = readPiped(empty, 1000);
    empty.end();
    assert.equal(await reading, '');
    const slow = new PassThrough();
    const waiting = readPiped(slow, undefined);
    setTimeout(() => slow.end('late question'), 80);
    assert.equal(await waiting, 'late question');
  });

  it('refuses input past the cap rather than cutting it', async () => {
    const pipe = new PassThrough();
    const reading = readPiped(pipe, 1000, 10);
    pipe.end('x'.repeat(11));
    await assert.rejects(reading, /larger than 10 characters/);
  });
});
