import * as z from 'zod/mini';
import { WikiRetriever, type RetrievedPage } from '../chat/retrieval';
import type { WikiPage } from '../model';
import type { ToolDependencies } from './dependencies';
import type { WikiTool } from './tool';
import { defineTool, field, plural, success } from './toolKit';

const DEFAULT_LIMIT = 5;

const input = z.strictObject({
  query: z.string().check(z.minLength(1), z.maxLength(500), z.describe('Words to look for: a question, names of modules, symbols or concepts.')),
  limit: z.optional(z.int().check(z.minimum(1), z.maximum(50), z.describe(`How many pages at most (default ${DEFAULT_LIMIT}).`))),
});

export function searchWikiTool(deps: Pick<ToolDependencies, 'pages' | 'ages' | 'deadlineMs'>): WikiTool {
  // One index per list of pages: a front end hands out the same array until a page changes.
  let indexed: { pages: readonly WikiPage[]; retriever: WikiRetriever } | undefined;
  const retrieverOf = (pages: readonly WikiPage[]) => {
    if (indexed?.pages !== pages) indexed = { pages, retriever: new WikiRetriever(pages) };
    return indexed.retriever;
  };
  return defineTool({
    name: 'search_wiki',
    description:
      "Searches this repository's wiki: pages written about the code's architecture, patterns, gotchas, testing and decisions. " +
      'Start here for any question about how the code works or why; it returns the best pages with their summary, status, age and best-matching passage. ' +
      'Then read a page in full with read_page, and check the code it cites with read_code.',
    input,
    narrow: 'Search with fewer, more specific words.',
    deadlineMs: deps.deadlineMs,
    label: (raw) => `Searched the wiki for "${field(raw, 'query')}"`,
    async run({ query, limit = DEFAULT_LIMIT }) {
      const pages = await deps.pages();
      const found = retrieverOf(pages).search(query, limit);
      if (!found.length) return success(`No wiki page matches "${query}". Try other words, or search the code with grep_code.`, '0 pages');
      const ages = await deps.ages?.(found.map((hit) => retrieverOf(pages).page(hit.slug)!));
      const text = found.map((hit, i) => describeHit(i + 1, hit, ages?.get(hit.slug))).join('\n\n');
      return success(`${plural(found.length, 'page')} for "${query}":\n\n${text}`, plural(found.length, 'page'));
    },
  });
}

function describeHit(rank: number, hit: RetrievedPage, age: string | undefined): string {
  return [
    `${rank}. ${hit.slug}: ${hit.title}`,
    `   status: ${hit.status}${age ? ` · age: ${age}` : ''} · score: ${hit.score}`,
    `   summary: ${hit.summary}`,
    '   passage:',
    ...hit.passage.split('\n').map((line) => `     ${line}`),
  ].join('\n');
}
