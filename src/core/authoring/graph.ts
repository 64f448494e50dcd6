import { GRAPH_STATUSES, type GraphEdge, type GraphNode, type GraphStatus, type WikiGraph } from '../../shared/graphProtocol';
import { TOPICS, type WikiPage } from '../model';
import { LinkIndex } from './linkIndex';

/** Room each node gets in the starting layout, in graph units. */
const NODE_SPACING = 12;
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

/**
 * The pages of a wiki as a graph: one node per page (title, topic, status, degree) and one edge
 * per linking pair, from the shared LinkIndex. Nodes start grouped by topic (a sunflower per topic
 * around a circle), so the webview's force layout begins close to its end and settles fast even
 * at thousands of pages.
 */
export function buildWikiGraph(pages: readonly WikiPage[]): WikiGraph {
  const links = LinkIndex.of(pages);
  const sorted = [...pages].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const edges: GraphEdge[] = [];
  const degree = new Map<string, number>();
  let brokenLinks = 0;
  for (const page of sorted) {
    const targets = new Set<string>();
    for (const link of page.links) {
      if (link.target === page.slug) continue;
      if (!links.page(link.target)) brokenLinks++;
      else targets.add(link.target);
    }
    for (const target of [...targets].sort()) {
      edges.push({ source: page.slug, target });
      degree.set(page.slug, (degree.get(page.slug) ?? 0) + 1);
      degree.set(target, (degree.get(target) ?? 0) + 1);
    }
  }
  const topicOf = (page: WikiPage) => (TOPICS.includes(page.frontmatter.topic as (typeof TOPICS)[number]) ? page.frontmatter.topic! : 'other');
  const topics = TOPICS.filter((topic) => sorted.some((page) => topicOf(page) === topic));
  const positions = startingPositions(sorted.map(topicOf), topics);
  const nodes: GraphNode[] = sorted.map((page, i) => ({
    slug: page.slug,
    title: page.frontmatter.title?.trim() || page.slug,
    summary: page.frontmatter.summary ?? '',
    topic: topicOf(page),
    status: statusOf(page),
    degree: degree.get(page.slug) ?? 0,
    ...positions[i],
  }));
  return { nodes, edges, topics: [...topics], brokenLinks };
}

function statusOf(page: WikiPage): GraphStatus {
  const status = String(page.frontmatter.status ?? 'active');
  return (GRAPH_STATUSES as readonly string[]).includes(status) ? (status as GraphStatus) : 'active';
}

/** Each topic's pages in a sunflower around its own point on a circle, sized by the number of pages. */
function startingPositions(nodeTopics: readonly string[], topics: readonly string[]): { x: number; y: number }[] {
  const counts = new Map<string, number>();
  for (const topic of nodeTopics) counts.set(topic, (counts.get(topic) ?? 0) + 1);
  const largest = Math.max(0, ...counts.values());
  // Far enough apart that the largest topic's sunflower does not reach its neighbours.
  const ring = topics.length > 1 ? (NODE_SPACING * Math.sqrt(largest) * 1.2) / Math.sin(Math.PI / topics.length) : 0;
  const placed = new Map<string, number>();
  return nodeTopics.map((topic) => {
    const angle = (2 * Math.PI * topics.indexOf(topic)) / Math.max(1, topics.length);
    const k = placed.get(topic) ?? 0;
    placed.set(topic, k + 1);
    const radius = NODE_SPACING * Math.sqrt(k + 0.5);
    return {
      x: Math.round(ring * Math.cos(angle) + radius * Math.cos(k * GOLDEN_ANGLE)),
      y: Math.round(ring * Math.sin(angle) + radius * Math.sin(k * GOLDEN_ANGLE)),
    };
  });
}
