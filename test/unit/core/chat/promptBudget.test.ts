import * as assert from 'node:assert/strict';
import { buildPrompt, catalog } from '../../../../src/core/chat/prompt';
import { fitPrompt, promptBudget, requestTokens } from '../../../../src/core/chat/promptBudget';
import type { ModelTraits } from '../../../../src/core/llm/languageModel';
import type { WikiPage } from '../../../../src/core/model';

const estimate = (text: string) => Math.ceil(text.length / 4);
const small: ModelTraits = { name: 'ollama/tiny', contextWindow: 4096, tools: true, countTokens: estimate, tokenMargin: 0.2 };

function page(i: number): WikiPage {
  return { slug: `page-${i}`, path: `.wiki/pages/page-${i}.md`, readable: true, body: `Body of page ${i}. `.repeat(400), frontmatter: { title: `Page ${i}`, summary: `What page ${i} says about module ${i}, at some length to fill the catalog.` } } as unknown as WikiPage;
}

describe('prompt budgets per model window', () => {
  const pages = Array.from({ length: 2000 }, (_, i) => page(i));
  const fullCatalog = catalog(pages);
  const retrieved = pages.slice(0, 5).map((p) => ({ slug: p.slug, title: String(p.frontmatter.title), summary: '', status: 'active', score: 1, passage: p.body.slice(0, 200) }));
  const priorTurns = Array.from({ length: 5 }, (_, i) => ({ question: `Earlier question ${i} `.repeat(20), answer: `Earlier answer ${i} `.repeat(100) }));
  const tools = [{ name: 'read_code', description: 'Reads code. '.repeat(20), inputSchema: { type: 'object' } }];
  const build = (maxPriorTurns: number, budget: Parameters<typeof buildPrompt>[0]['settings']['budget']) => buildPrompt({
    question: 'How does retry work?', priorTurns, retrieved: retrieved as never, pageBodies: new Map(pages.slice(0, 5).map((p) => [p.slug, p.body])),
    catalog: fullCatalog, settings: { maxPriorTurns, priorAnswerChars: 2000, budget }, tools: true,
  });

  it('fits a 4,096-token window: the answer, the margin and the prompt together', () => {
    const fit = fitPrompt(small, 2048, tools, build, 5);
    assert.equal(fit.budget.outputTokens, 1024, 'a quarter of a small window for the answer');
    const counted = Math.ceil(requestTokens(estimate, { ...build(5, fit.budget), tools }) * 1.2);
    assert.ok(counted <= fit.budget.inputTokens, `${counted} tokens > ${fit.budget.inputTokens}`);
    assert.ok(counted + fit.budget.outputTokens <= 4096);
    assert.ok(fit.budget.pagesTokens > 0 && fit.budget.catalogTokens > 0, 'pages and catalog still get room');
  });

  it('gives a large window what it always had', () => {
    const budget = promptBudget({ contextWindow: 200_000, tokenMargin: 0.1 }, 2048, 2000);
    assert.deepEqual([budget.catalogTokens, budget.pagesTokens, budget.priorTurnsTokens, budget.outputTokens], [4000, 12_000, 8000, 2048]);
  });
});

describe('the chat on a model with a 4,096-token window', () => {
  it('keeps every request within the window, the summary of earlier turns and the tool results included', async () => {
    const { ChatService } = await import('../../../../src/core/chat/chatService');
    const { Wiki } = await import('../../../../src/core/wiki/wiki');
    const { fixedClock, MemoryConversationStore, MemoryFileSystem, pageText } = await import('../../../support/fakes');
    const fs = new MemoryFileSystem();
    for (let i = 0; i < 300; i++) fs.write(`/ws/.wiki/pages/retry-${i}.md`, pageText(`Retries in module ${i}`, `How module ${i} retries requests. `.repeat(200)));
    const wiki = new Wiki('/ws', fs, fixedClock());
    const pages = await wiki.loadPages();
    const sizes: number[] = [];
    let calls = 0;
    const model = {
      describe: async () => small,
      async complete(request: import('../../../../src/core/llm/languageModel').CompletionRequest) {
        sizes.push(Math.ceil(requestTokens(estimate, request) * 1.2) + request.maxTokens);
        calls++;
        // Every second request reads code, so tool results join the prompt.
        const tools = request.tools?.length && request.toolChoice !== 'none' && calls % 2 === 1;
        return tools
          ? { text: '', toolCalls: [{ id: `c${calls}`, name: 'read_code', input: {} }], model: 'ollama/tiny', inputTokens: 1, outputTokens: 1, stopReason: 'tool_use' }
          : { text: `Answer ${calls}: ${'retries back off exponentially. '.repeat(60)}`, model: 'ollama/tiny', inputTokens: 1, outputTokens: 1, stopReason: 'end_turn' };
      },
    };
    const readCode = { name: 'read_code', label: () => 'Read code', description: 'Reads code.', inputSchema: { type: 'object' }, run: async () => ({ ok: true, text: 'export function retry() {}\n'.repeat(2000), summary: 'lines' }) };
    const chat = new ChatService({
      store: new MemoryConversationStore(), pages: async () => pages, chooseModel: async () => ({ model }), tools: () => [readCode as never], now: () => new Date('2026-11-27T10:00:00Z'),
      settings: () => ({ model: 'ollama/tiny', maxTokens: 2048, maxPriorTurns: 5, priorAnswerChars: 2000, pagesPerTurn: 5, maxToolRounds: 3, toolTokenBudget: 150_000 }),
    });
    let conversationId: string | undefined;
    for (let turn = 0; turn < 8; turn++) {
      const result = await chat.ask({ conversationId, question: `How does module ${turn} retry requests after a timeout?` }, { onText: () => undefined });
      conversationId = result.conversation.id;
    }
    assert.ok(sizes.length > 8);
    assert.ok(sizes.every((size) => size <= 4096), `largest request ${Math.max(...sizes)} tokens`);
  });
});
