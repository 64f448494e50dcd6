import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { offlineAnswer } from '../../../../src/core/chat/offline';
import { isConfident, WikiRetriever } from '../../../../src/core/chat/retrieval';
import { STARTER_PAGE_TITLES } from '../../../../src/core/chat/starterPages';
import { parsePage } from '../../../../src/core/pages/page';

const FIXTURE = path.resolve(__dirname, '../../../../../test/fixtures/recall-wiki');
const TEMPLATE_PAGES = path.resolve(__dirname, '../../../../../wiki-template/pages');

interface Question { question: string; expected: string }

const pages = readdirSync(path.join(FIXTURE, 'pages')).map((file) =>
  parsePage(`.wiki/pages/${file}`, file.replace(/\.md$/, ''), readFileSync(path.join(FIXTURE, 'pages', file))));
const questions: Question[] = ['questions.json', 'questions-holdout.json']
  .flatMap((file) => JSON.parse(readFileSync(path.join(FIXTURE, file), 'utf8')) as Question[]);
const retriever = new WikiRetriever(pages);

describe('retrieval recall on a paraphrased question set', () => {
  it('parses every fixture page', () => {
    assert.ok(pages.length >= 32);
    assert.deepEqual(pages.filter((page) => !page.valid).map((page) => page.slug), []);
  });

  it('has the right page in the top 3 for at least 90% of questions', () => {
    const missed = questions.filter(({ question, expected }) => !retriever.search(question, 3).some((hit) => hit.slug === expected));
    const recall = 1 - missed.length / questions.length;
    assert.ok(recall >= 0.9, `recall@3 ${recall.toFixed(2)}; missed:\n${missed.map((q) => `${q.question} -> ${q.expected}`).join('\n')}`);
  });

  it('ranks the starter pages below every real page', () => {
    for (const { question } of questions) {
      const slugs = retriever.search(question, 10).map((hit) => hit.slug);
      const firstStarter = slugs.findIndex((slug) => STARTER_PAGE_TITLES.has(slug));
      if (firstStarter >= 0) assert.ok(slugs.slice(firstStarter).every((slug) => STARTER_PAGE_TITLES.has(slug)), `${question}: ${slugs.join(', ')}`);
    }
    assert.equal(retriever.search('How do I write a page and cite code in it?', 3)[0].slug !== 'how-to-write-pages', true);
  });

  it('still finds the starter pages in a wiki that has nothing else', () => {
    const starters = pages.filter((page) => STARTER_PAGE_TITLES.has(page.slug));
    assert.equal(new WikiRetriever(starters).search('how to cite code in a page', 1)[0].slug, 'how-to-write-pages');
  });

  it('knows the starter pages by the titles the template gives them', () => {
    for (const [slug, title] of STARTER_PAGE_TITLES) {
      assert.match(readFileSync(path.join(TEMPLATE_PAGES, `${slug}.md`), 'utf8'), new RegExp(`^title: ${title}$`, 'm'));
    }
  });

  it('is confident on questions the wiki answers, and not on off-topic ones', () => {
    // The floor trades a few refusals of terse questions for never answering off-topic ones.
    const unsure = questions.filter(({ question }) => !isConfident(retriever.search(question, 3)));
    assert.ok(unsure.length / questions.length <= 0.05, `not confident on: ${unsure.map((q) => q.question).join(' | ')}`);
    for (const question of ['What is the capital of France?', 'Who won the football world cup in 2018?', 'Recipe for sourdough bread']) {
      assert.equal(isConfident(retriever.search(question, 3)), false, question);
    }
  });

  it('answers offline with passages when confident, and says plainly when the wiki has nothing', () => {
    const answered = offlineAnswer(retriever.search('How do we try a declined card again later?', 3), 'no-key');
    assert.match(answered, /### \[\[payment-retry-policy\]\] Payment retry policy/);
    const refused = offlineAnswer(retriever.search('What is the capital of France?', 3), 'no-key');
    assert.match(refused, /The wiki has nothing that answers this\./);
    assert.doesNotMatch(refused, /^> /m, 'no passage is quoted as if it answered');
  });
});
