import * as assert from 'node:assert/strict';
import { assertSlug, isValidSlug, slugify, uniqueSlug } from '../../../../src/core/pages/slug';

describe('slugs', () => {
  it('derives lowercase hyphenated slugs from titles', () => {
    assert.equal(slugify('Request Pipeline: How it Works!'), 'request-pipeline-how-it-works');
    assert.equal(slugify('Café  déjà vu'), 'cafe-deja-vu');
    assert.equal(slugify('../../etc/passwd'), 'etc-passwd');
    assert.equal(slugify('???'), 'page');
  });

  it('caps slugs at 80 characters without a trailing hyphen', () => {
    const slug = slugify(`${'word '.repeat(40)}`);
    assert.ok(slug.length <= 80);
    assert.ok(isValidSlug(slug));
  });

  it('suffixes a taken slug until it is unique', () => {
    assert.equal(uniqueSlug('intro', new Set()), 'intro');
    assert.equal(uniqueSlug('intro', new Set(['intro', 'intro-2'])), 'intro-3');
    const long = 'a'.repeat(80);
    const next = uniqueSlug(long, new Set([long]));
    assert.equal(next.length, 80);
    assert.ok(next.endsWith('-2'));
  });

  it('rejects anything that could leave .wiki/pages/', () => {
    for (const bad of ['../x', 'a/b', '', 'A', 'a--b', '-a', 'a.md', '/abs', 'a\\b', 'x'.repeat(81)]) {
      assert.equal(isValidSlug(bad), false, bad);
      assert.throws(() => assertSlug(bad), /not a valid page slug/);
    }
  });

  it('rejects Windows device names, which cannot be checked out as page files there', () => {
    for (const reserved of ['con', 'prn', 'aux', 'nul', 'com0', 'com9', 'lpt1', 'lpt9']) {
      assert.equal(isValidSlug(reserved), false, reserved);
      assert.throws(() => assertSlug(reserved), /not a valid page slug: Windows reserves that name for a device/);
    }
    for (const fine of ['con-page', 'console', 'com10', 'lpt', 'nul-2', 'aux-cable']) assert.equal(isValidSlug(fine), true, fine);
  });

  it('never derives or picks a Windows device name', () => {
    assert.equal(slugify('CON'), 'con-page');
    assert.equal(slugify('Nul!'), 'nul-page');
    assert.equal(slugify('COM1'), 'com1-page');
    assert.equal(slugify('lpt 1'), 'lpt-1');
    assert.equal(uniqueSlug('aux', new Set()), 'aux-2');
    assert.equal(uniqueSlug('aux', new Set(['aux-2'])), 'aux-3');
  });
});
