// Python's redundant parentheses (no change to a fingerprint) and its package re-exports.
import * as assert from 'node:assert/strict';
import { SourceParser } from '../../../../src/adapters/sourceParser';

describe('Python parentheses in fingerprints', () => {
  /** The body fingerprint of `f`, parsed wanting it (cover), wanting nothing (a second parse finds the skips) and wanting the whole file. */
  const bodies = async (body: string) => {
    const text = `def f(a, b, c, x, y):\n${body.split('\n').map((line) => `    ${line}`).join('\n')}\n`;
    const parser = new SourceParser(false);
    await parser.prepare('m.py');
    const wanted = parser.parse('m.py', text, { names: ['f'] }).get('f')!.body;
    const whole = new SourceParser(false);
    await whole.prepare('m.py');
    const all = whole.parse('m.py', text).symbols.get('f')!.body;
    const file = new SourceParser(false);
    await file.prepare('m.py');
    const withFile = file.parse('m.py', text, { names: ['f'], wholeFile: true }).get('f')!.body;
    assert.equal(all, wanted, 'the same fingerprint however the file was parsed');
    assert.equal(withFile, wanted, 'the same fingerprint however the file was parsed');
    return wanted;
  };

  it('parentheses that change no parse are no change: return (x), if (a):, x = (a + b), (f(a)).b, while (a):', async () => {
    assert.equal(await bodies('return (x)'), await bodies('return x'));
    assert.equal(await bodies('if (a):\n    pass\nelif (b):\n    pass'), await bodies('if a:\n    pass\nelif b:\n    pass'));
    assert.equal(await bodies('y = (a + b)\ny += (c)'), await bodies('y = a + b\ny += c'));
    assert.equal(await bodies('return (f(a)).b + ((c))'), await bodies('return f(a).b + c'));
    assert.equal(await bodies('while (a):\n    break'), await bodies('while a:\n    break'));
  });

  it('parentheses that matter are a change: (a + b) * c, a tuple, a generator, (1).real, a real edit', async () => {
    assert.notEqual(await bodies('return (a + b) * c'), await bodies('return a + b * c'));
    assert.notEqual(await bodies('return (a, b)[0]'), await bodies('return a, b[0]'));
    assert.notEqual(await bodies('return f((x for x in y), 1)'), await bodies('return f(x for x in y, 1)'));
    assert.notEqual(await bodies('return (1).real'), await bodies('return 1.real'));
    assert.notEqual(await bodies('return (x)'), await bodies('return (y)'));
    assert.notEqual(await bodies('return x'), await bodies('return x + 1'));
  });
});

describe('Python re-exports', () => {
  it('module-level from-imports, relative and absolute, with aliases, submodules and *; none inside a function', async () => {
    const parser = new SourceParser(false);
    await parser.prepare('pkg/__init__.py');
    const text = [
      'from .core import Context',
      'from .core import A as B, C',
      'from . import utils',
      'from .. import sibling',
      'from .types import *',
      'from click.core import Group',
      'import os',
      'try:',
      '    from ._speedups import (fast,',
      '        faster)',
      'except ImportError:',
      '    pass',
      'def f():',
      '    from .late import Hidden',
      '',
    ].join('\n');
    const parsed = parser.parse('pkg/__init__.py', text, { names: ['Context'] });
    assert.equal(parsed.get('Context'), undefined, 'an import declares nothing here');
    assert.deepEqual(parsed.reExports!(), [
      { exported: 'Context', imported: 'Context', from: './core' },
      { exported: 'B', imported: 'A', from: './core' },
      { exported: 'C', imported: 'C', from: './core' },
      { exported: 'utils', imported: '*', from: './utils' },
      { exported: 'sibling', imported: '*', from: '../sibling' },
      { exported: '*', imported: '*', from: './types' },
      { exported: 'Group', imported: 'Group', from: 'click/core' },
      { exported: 'fast', imported: 'fast', from: './_speedups' },
      { exported: 'faster', imported: 'faster', from: './_speedups' },
    ]);
  });
});
