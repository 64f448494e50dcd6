// Mocha reporter: the usual Spec output, plus a JSON summary written to $REPO_WIKI_TEST_RESULTS so
// a parent process can count results it cannot see otherwise (e.g. tests run in the extension host).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const EVENT_RUN_END = Mocha.Runner.constants.EVENT_RUN_END;

class CountReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const file = process.env.REPO_WIKI_TEST_RESULTS;
      if (!file) return;
      const summary = {
        passed: this.stats.passes || 0,
        failed: this.stats.failures || 0,
        failures: this.failures.map((t) => ({
          title: typeof t.fullTitle === 'function' ? t.fullTitle() : t.title,
          error: t.err ? String(t.err.message || t.err) : '',
        })),
      };
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(summary, null, 2));
    });
  }
}

module.exports = CountReporter;
