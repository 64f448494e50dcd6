import * as assert from 'node:assert/strict';
import { buildWikiGraph } from '../../../../src/core/authoring';
import { parsePage } from '../../../../src/core/pages/page';
import { parseGraphMessage } from '../../../../src/shared/graphProtocol';
import { pageText } from '../../../support/fakes';

const parse = (slug: string, text: string) => parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(text));

describe('Wiki graph data', () => {
  const pages = [
    parse('pipeline', pageText('Request pipeline', 'See [[storage]], [[storage#Retries]] twice, [[pipeline]] itself and [[gone]].\n\n```\n[[notes]] in a fence\n```\n')),
    parse('storage', pageText('<img src=x onerror=alert(1)>', 'Back to [[pipeline|the pipeline]].', { topic: 'gotchas', status: 'stale' })),
    parse('notes', pageText('Notes', 'Old, see [[storage]].', { topic: 'other', status: 'superseded', superseded_by: 'storage' })),
    parse('broken', '---\ntopic: unknown-topic\nstatus: retired\n---\nNo title, an unknown topic and status; links to [[notes]].'),
  ];

  it('has one node per page with its title, topic and status, and one edge per linking pair', () => {
    const graph = buildWikiGraph(pages);
    assert.deepEqual(graph.nodes.map((node) => [node.slug, node.title, node.topic, node.status, node.degree]), [
      ['broken', 'broken', 'other', 'active', 1],
      ['notes', 'Notes', 'other', 'superseded', 2],
      ['pipeline', 'Request pipeline', 'architecture', 'active', 2],
      ['storage', '<img src=x onerror=alert(1)>', 'gotchas', 'stale', 3],
    ]);
    // The heading link and the repeated link are one edge; the self-link, the fenced link and the missing page are none.
    assert.deepEqual(graph.edges, [
      { source: 'broken', target: 'notes' },
      { source: 'notes', target: 'storage' },
      { source: 'pipeline', target: 'storage' },
      { source: 'storage', target: 'pipeline' },
    ]);
    assert.equal(graph.brokenLinks, 1);
  });

  it('lists the topics that occur in the schema order, for the legend', () => {
    assert.deepEqual(buildWikiGraph(pages).topics, ['architecture', 'gotchas', 'other']);
    assert.deepEqual(buildWikiGraph([]), { nodes: [], edges: [], topics: [], brokenLinks: 0 });
  });

  it('starts each topic in its own cluster, the same way every time', () => {
    const many = Array.from({ length: 60 }, (_, i) => parse(`page-${i}`, pageText(`Page ${i}`, '', { topic: i % 2 ? 'testing' : 'patterns' })));
    const graph = buildWikiGraph(many);
    assert.deepEqual(buildWikiGraph(many).nodes, graph.nodes);
    const centre = (topic: string) => {
      const nodes = graph.nodes.filter((node) => node.topic === topic);
      return { x: nodes.reduce((sum, node) => sum + node.x, 0) / nodes.length, y: nodes.reduce((sum, node) => sum + node.y, 0) / nodes.length };
    };
    const [patterns, testing] = [centre('patterns'), centre('testing')];
    const spread = Math.max(...graph.nodes.filter((node) => node.topic === 'patterns').map((node) => Math.hypot(node.x - patterns.x, node.y - patterns.y)));
    assert.ok(Math.hypot(patterns.x - testing.x, patterns.y - testing.y) > spread, 'the clusters do not overlap');
    assert.equal(new Set(graph.nodes.map((node) => `${node.x},${node.y}`)).size, graph.nodes.length, 'no two nodes start on the same spot');
  });

  it('builds 2,000 pages with 6,000 links (bench/authoring times it)', () => {
    const slugs = Array.from({ length: 2000 }, (_, i) => `page-${i}`);
    const big = slugs.map((slug, i) => parse(slug, pageText(`Page ${i}`, [1, 7, 31].map((step) => `[[${slugs[(i + step) % slugs.length]}]]`).join(' '))));
    const graph = buildWikiGraph(big);
    assert.equal(graph.nodes.length, 2000);
    assert.equal(graph.edges.length, 6000);
  });
});

describe('Wiki graph messages from the webview', () => {
  it('accepts ready, an openPage with a slug, and a rendered report', () => {
    assert.deepEqual(parseGraphMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseGraphMessage({ type: 'openPage', slug: 'request-pipeline' }), { type: 'openPage', slug: 'request-pipeline' });
    assert.deepEqual(parseGraphMessage({ type: 'rendered', nodes: 12, ms: 40.5 }), { type: 'rendered', nodes: 12, ms: 40.5 });
  });

  it('drops paths, commands, extra fields and anything malformed', () => {
    for (const message of [
      { type: 'openPage', slug: '../../etc/passwd' },
      { type: 'openPage', slug: '/abs/page.md' },
      { type: 'openPage', slug: 'page.md' },
      { type: 'openPage', slug: 'Page' },
      { type: 'openPage', slug: 'a'.repeat(81) },
      { type: 'openPage', slug: 'ok', path: '/etc/passwd' },
      { type: 'openPage' },
      { type: 'runCommand', command: 'workbench.action.terminal.new' },
      { type: 'rendered', nodes: 'many', ms: 1 },
      { type: 'ready', extra: 1 },
      'ready', null, [], 42,
    ]) assert.equal(parseGraphMessage(message), undefined, JSON.stringify(message));
  });
});
