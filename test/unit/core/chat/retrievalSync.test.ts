import * as assert from 'node:assert/strict';
import { WikiRetriever } from '../../../../src/core/chat/retrieval';
import { parsePage } from '../../../../src/core/pages/page';
import { pageText } from '../../../support/fakes';

const page = (slug: string, title: string, body: string) => parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(title, body)));

describe('WikiRetriever.sync', () => {
  it('finds what a fresh index finds after pages are added, changed and removed', () => {
    const before = [page('caching', 'Caching', 'GET responses are cached.'), page('routing', 'Routing', 'The router matches paths.'), page('queues', 'Queues', 'Jobs wait in a queue.')];
    const after = [page('caching', 'Caching', 'Nothing is cached any more; the proxy caches.'), page('routing', 'Routing', 'The router matches paths.'), page('webhooks', 'Webhooks', 'Webhooks retry with backoff.')];
    const retriever = new WikiRetriever(before);
    retriever.sync(after);
    const fresh = new WikiRetriever(after);
    for (const query of ['proxy caches', 'queue jobs', 'webhooks backoff', 'router paths', 'GET responses']) {
      assert.deepEqual(retriever.search(query).map((hit) => hit.slug), fresh.search(query).map((hit) => hit.slug), query);
    }
    assert.equal(retriever.size, 3);
    assert.equal(retriever.page('queues'), undefined);
    assert.equal(retriever.search('proxy', 5, { passages: false })[0].passage, '');
  });
});
