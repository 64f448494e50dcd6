// The mock Messages API in its own process for the ingest benchmark, so its work is not counted as
// ours. Each reply is a plan that creates one page for the note named in the request.
const { startMockAnthropic } = require('../../test/harness/mockAnthropic.cjs');

startMockAnthropic({
  validKey: 'sk-ant-bench',
  defaultReply: (body) => {
    const n = /docs\/note-(\d+)\.md/.exec(body.messages[0].content)?.[1];
    const page = {
      action: 'create', slug: `bench-note-${n}`, title: `Bench note ${n}`, topic: 'patterns', summary: `What note ${n} says about errors.`, tags: ['bench'],
      // Words of its own, so that distinct notes are not taken for re-discoveries of each other.
      body: `# Bench note ${n}\n\nErrors are \`src/errors.ts:HttpError\`; \`src/pipeline.ts:Pipeline.run\` turns them into responses. See [[request-pipeline]].\n\n${Array.from({ length: 30 }, (_, k) => `topic${n}word${k}`).join(' ')}.`,
      citations: ['src/errors.ts:HttpError', 'src/pipeline.ts:Pipeline.run'],
    };
    return { text: JSON.stringify({ pages: [page], corroborate: [], links: [{ from: `bench-note-${n}`, to: 'request-pipeline' }] }), chunks: 8 };
  },
}).then((mock) => process.stdout.write(`${mock.url}\n`));
