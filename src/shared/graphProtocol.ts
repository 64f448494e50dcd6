/** Messages between the wiki graph webview and the extension host. Both sides validate what they receive. */

/** The statuses the graph marks; any other (or none) shows as active. `archived` comes with upkeep. */
export const GRAPH_STATUSES = ['active', 'stale', 'superseded', 'archived'] as const;
export type GraphStatus = (typeof GRAPH_STATUSES)[number];

/** One page in the graph. Titles and summaries come from pages anyone could have written: render them as text. */
export interface GraphNode {
  slug: string;
  title: string;
  summary: string;
  /** The page's topic; `other` when it has none or an unknown one. */
  topic: string;
  status: GraphStatus;
  /** Links in and out, for the node's size. */
  degree: number;
  /** Starting position, grouped by topic, so the layout settles quickly. */
  x: number;
  y: number;
}

/** A link between two existing pages (one per pair and direction; self-links left out). */
export interface GraphEdge {
  source: string;
  target: string;
}

export interface WikiGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Topics that occur, in the schema's order: the legend and the colour of each. */
  topics: string[];
  /** Links to pages that do not exist (lint reports them); not drawn. */
  brokenLinks: number;
}

export type GraphToHost =
  | { type: 'ready' }
  | { type: 'openPage'; slug: string }
  /** The first frame is on screen, with how long the webview took from the data arriving (for tests and the bench). */
  | { type: 'rendered'; nodes: number; ms: number };

export type HostToGraph = { type: 'graph'; graph: WikiGraph; wikiName: string };

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SLUG = 80;

/** Drops anything that is not exactly a known message; a slug must look like one (the host then checks that the page exists). */
export function parseGraphMessage(value: unknown): GraphToHost | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  const keys = Object.keys(message).sort().join(',');
  switch (message.type) {
    case 'ready':
      return keys === 'type' ? { type: 'ready' } : undefined;
    case 'openPage':
      return keys === 'slug,type' && typeof message.slug === 'string' && message.slug.length <= MAX_SLUG && SLUG.test(message.slug)
        ? { type: 'openPage', slug: message.slug }
        : undefined;
    case 'rendered':
      return keys === 'ms,nodes,type' && Number.isFinite(message.ms) && Number.isInteger(message.nodes)
        ? { type: 'rendered', nodes: message.nodes as number, ms: message.ms as number }
        : undefined;
    default:
      return undefined;
  }
}
