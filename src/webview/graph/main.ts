/**
 * The wiki graph webview: pages as nodes coloured by topic, links as edges, drawn on a canvas by
 * force-graph. Titles and summaries are untrusted (anyone could have written a page): they are
 * drawn on the canvas or set as textContent, never parsed as HTML. A click only names a slug; the
 * host checks that the page exists before opening anything.
 */
import ForceGraph from 'force-graph';
import type { GraphNode, GraphToHost, HostToGraph, WikiGraph } from '../../shared/graphProtocol';

interface VsCodeApi {
  postMessage(message: GraphToHost): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const api = acquireVsCodeApi();

type Node = GraphNode & { id: string; vx?: number; vy?: number };
type Link = { source: string | Node; target: string | Node };

/** Topic colours from the theme's `--vscode-charts-*` variables, with a fallback outside VS Code. */
const TOPIC_COLOURS: Record<string, [variable: string, fallback: string]> = {
  architecture: ['--vscode-charts-blue', '#3794ff'],
  patterns: ['--vscode-charts-green', '#89d185'],
  gotchas: ['--vscode-charts-orange', '#d18616'],
  testing: ['--vscode-charts-purple', '#b180d7'],
  dependencies: ['--vscode-charts-yellow', '#cca700'],
  decisions: ['--vscode-charts-red', '#f14c4c'],
  conversations: ['--vscode-charts-foreground', '#cccccc'],
  other: ['--vscode-charts-lines', '#808080'],
};
const STATUS_TEXT: Record<GraphNode['status'], string> = { active: '', stale: 'stale', superseded: 'superseded', archived: 'archived' };
/** Ring dashes (in screen pixels) of the pages that are no longer current. */
const DASHES: Record<Exclude<GraphNode['status'], 'active'>, number[]> = { stale: [4, 3], superseded: [1.5, 2.5], archived: [6, 2, 1.5, 2] };
/** Past this many pages the graph skips arrows and settles in fewer ticks, so large wikis stay responsive. */
const LARGE = 500;

/** The theme's colours, read once per theme: the canvas draws thousands of nodes a frame and must not ask the style engine each time. */
interface Palette {
  topics: Map<string, string>;
  foreground: string;
  link: string;
  focus: string;
  font: string;
}
let palette: Palette = readPalette();

function readPalette(): Palette {
  const style = getComputedStyle(document.body);
  const css = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    topics: new Map(Object.entries(TOPIC_COLOURS).map(([topic, [variable, fallback]]) => [topic, css(variable, fallback)])),
    foreground: css('--vscode-foreground', '#888'),
    link: css('--vscode-editorWidget-border', '#8886'),
    focus: css('--vscode-focusBorder', '#0090f1'),
    font: css('--vscode-font-family', 'sans-serif'),
  };
}
const colourOf = (topic: string) => palette.topics.get(topic) ?? palette.topics.get('other')!;

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

const header = element('header', 'toolbar');
const heading = element('h1', 'title', 'Wiki graph');
const counts = element('span', 'counts');
const find = element('input', 'find');
find.type = 'search';
find.placeholder = 'Find a page (Enter opens it)';
find.setAttribute('aria-label', 'Find a page by title or slug; Enter opens it');
const legend = element('ul', 'legend');
legend.setAttribute('aria-label', 'Legend');
header.append(heading, counts, find, legend);
const canvasHost = element('div', 'graph');
canvasHost.setAttribute('role', 'img');
const empty = element('p', 'empty', 'This wiki has no pages yet.');
empty.hidden = true;
document.body.append(header, canvasHost, empty);

let current: WikiGraph = { nodes: [], edges: [], topics: [], brokenLinks: 0 };
let highlighted: string | undefined;
let fitted = false;
let dataArrived = 0;
let reportPending = false;

const graph = new ForceGraph<Node, Link>(canvasHost)
  .nodeId('id')
  .nodeRelSize(4)
  .nodeVal((node) => 1 + Math.sqrt(node.degree))
  .nodeLabel((node) => tooltip(node))
  .nodeCanvasObject((node, ctx, scale) => drawNode(node, ctx, scale))
  .nodePointerAreaPaint((node, colour, ctx) => {
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.arc(node.x ?? 0, node.y ?? 0, radiusOf(node) + 2, 0, 2 * Math.PI);
    ctx.fill();
  })
  .linkColor(() => palette.link)
  .linkWidth(0.6)
  .warmupTicks(0)
  .onNodeClick((node) => api.postMessage({ type: 'openPage', slug: node.slug }))
  .onEngineStop(() => {
    if (!fitted) fit(300);
    fitted = true;
  })
  .onRenderFramePost(() => {
    if (!reportPending) return;
    reportPending = false;
    api.postMessage({ type: 'rendered', nodes: current.nodes.length, ms: performance.now() - dataArrived });
  });

/** Most zoom a fitted graph gets: a wiki of a few pages stays a readable size instead of filling the view. */
const MAX_FIT_ZOOM = 2.5;
const FIT_PADDING = 40;

/** Everything in view, centred, no closer than MAX_FIT_ZOOM. */
function fit(durationMs: number): void {
  if (!current.nodes.length) return;
  const { x: [left, right], y: [top, bottom] } = graph.getGraphBbox();
  const width = Math.max(1, canvasHost.clientWidth - 2 * FIT_PADDING);
  const height = Math.max(1, canvasHost.clientHeight - 2 * FIT_PADDING);
  const zoom = Math.min(MAX_FIT_ZOOM, width / Math.max(1, right - left), height / Math.max(1, bottom - top));
  graph.centerAt((left + right) / 2, (top + bottom) / 2, durationMs).zoom(zoom, durationMs);
}

function radiusOf(node: Node): number {
  return 4 * Math.sqrt(1 + Math.sqrt(node.degree));
}

function drawNode(node: Node, ctx: CanvasRenderingContext2D, scale: number): void {
  const x = node.x ?? 0;
  const y = node.y ?? 0;
  const r = radiusOf(node);
  const faded = node.status !== 'active';
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.globalAlpha = faded ? 0.35 : 1;
  ctx.fillStyle = colourOf(node.topic);
  ctx.fill();
  ctx.globalAlpha = 1;
  if (faded || node.slug === highlighted) {
    // Stale pages get a dashed ring, superseded ones a dotted ring, archived ones dash-dot; the found page a solid one.
    // In screen pixels whatever the zoom (the canvas is scaled by it).
    const px = 1 / scale;
    ctx.setLineDash(node.slug === highlighted || node.status === 'active' ? [] : DASHES[node.status].map((length) => length * px));
    ctx.lineWidth = (node.slug === highlighted ? 3 : 1.5) * px;
    ctx.strokeStyle = node.slug === highlighted ? palette.focus : palette.foreground;
    ctx.stroke();
    ctx.setLineDash([]);
  }
  // Labels once zoomed in enough to read them (or always in a small wiki), and for the found page.
  if (scale > 2.2 || current.nodes.length <= 40 || node.slug === highlighted) {
    const size = Math.max(10 / scale, 2);
    ctx.font = `${size}px ${palette.font}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillStyle = palette.foreground;
    ctx.globalAlpha = faded ? 0.6 : 1;
    ctx.fillText(node.title.length > 40 ? `${node.title.slice(0, 39)}…` : node.title, x, y + r + 1);
    ctx.globalAlpha = 1;
  }
}

function tooltip(node: Node): HTMLElement {
  const box = element('div', 'tip');
  box.append(element('strong', undefined, node.title));
  const meta = [node.topic, STATUS_TEXT[node.status], node.slug].filter(Boolean).join(' · ');
  box.append(element('div', 'tip-meta', meta));
  if (node.summary) box.append(element('div', 'tip-summary', node.summary));
  return box;
}

function renderLegend(graph: WikiGraph): void {
  legend.replaceChildren();
  for (const topic of graph.topics) {
    const item = element('li');
    const swatch = element('span', 'swatch');
    swatch.style.backgroundColor = colourOf(topic);
    item.append(swatch, document.createTextNode(topic));
    legend.append(item);
  }
  for (const status of ['stale', 'superseded', 'archived'] as const) {
    if (!graph.nodes.some((node) => node.status === status)) continue;
    const item = element('li');
    item.append(element('span', `swatch ${status}`), document.createTextNode(`${status} (faded)`));
    legend.append(item);
  }
}

function show(next: WikiGraph, wikiName: string): void {
  // Nodes that were already there keep where they are; new ones start at the host's position for their topic.
  const previous = new Map(graph.graphData().nodes.map((node) => [node.id, node]));
  const nodes: Node[] = next.nodes.map((node) => {
    const old = previous.get(node.slug);
    return { ...node, id: node.slug, ...(old ? { x: old.x, y: old.y, vx: old.vx, vy: old.vy } : {}) };
  });
  current = next;
  const large = nodes.length > LARGE;
  heading.textContent = `Wiki graph: ${wikiName}`;
  counts.textContent = `${nodes.length} pages, ${next.edges.length} links${next.brokenLinks ? `, ${next.brokenLinks} to missing pages` : ''}`;
  canvasHost.setAttribute('aria-label', `Graph of ${nodes.length} wiki pages and ${next.edges.length} links between them`);
  empty.hidden = nodes.length > 0;
  renderLegend(next);
  fitted = fitted && previous.size > 0;
  dataArrived = performance.now();
  reportPending = true;
  // A small wiki gets room for its labels; a large one stays compact so it fits the view.
  graph.d3Force('link')?.distance(large ? 30 : 80);
  // The many-body force is most of a tick: a large wiki approximates it more coarsely and only near by.
  graph.d3Force('charge')?.strength(large ? -30 : -200).theta(large ? 1.5 : 0.9).distanceMax(large ? 150 : Infinity);
  graph
    .linkDirectionalArrowLength(large ? 0 : 3)
    .linkDirectionalArrowRelPos(1)
    .cooldownTicks(large ? 100 : 400)
    .d3AlphaDecay(large ? 0.07 : 0.0228)
    .graphData({ nodes, links: next.edges.map((edge) => ({ ...edge })) });
  if (!fitted) fit(0);
}

function resize(): void {
  graph.width(canvasHost.clientWidth).height(canvasHost.clientHeight);
}
new ResizeObserver(resize).observe(canvasHost);

find.addEventListener('input', () => {
  const query = find.value.trim().toLowerCase();
  const match = query ? current.nodes.find((node) => node.title.toLowerCase().includes(query) || node.slug.includes(query)) : undefined;
  highlighted = match?.slug;
  const node = match && graph.graphData().nodes.find((candidate) => candidate.id === match.slug);
  if (node?.x !== undefined && node.y !== undefined) graph.centerAt(node.x, node.y, 300);
});
find.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && highlighted) api.postMessage({ type: 'openPage', slug: highlighted });
});

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data as Partial<HostToGraph> | null;
  if (message?.type !== 'graph' || !message.graph || typeof message.wikiName !== 'string') return;
  show(message.graph, message.wikiName);
});

// VS Code switches themes by changing the body's class: read the colours again and redraw.
new MutationObserver(() => {
  palette = readPalette();
  renderLegend(current);
  graph.linkColor(() => palette.link);
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

resize();
api.postMessage({ type: 'ready' });
