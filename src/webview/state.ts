/** The VS Code webview API and the view state that survives hiding the view. */
import type { SelectionChip, WebviewToHost } from '../shared/protocol';

export type Panel = 'chat' | 'history';

export interface ViewState {
  draft: string;
  conversationId?: string;
  panel: Panel;
  /** Scroll position of the message list. */
  scrollTop: number;
  search: string;
  /** The attached selection not yet sent (the host still holds its text). */
  chip?: SelectionChip;
}

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = acquireVsCodeApi();

/** Sends a message to the extension host. Keys with `undefined` values are left out (the host rejects them). */
export function post(message: WebviewToHost): void {
  const clean = Object.fromEntries(Object.entries(message).filter(([, value]) => value !== undefined)) as WebviewToHost;
  api.postMessage(clean);
}

const isId = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value);

function restore(raw: unknown): ViewState {
  const saved = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const chip = saved.chip as SelectionChip | undefined;
  return {
    draft: typeof saved.draft === 'string' ? saved.draft : '',
    conversationId: isId(saved.conversationId) ? saved.conversationId : undefined,
    panel: saved.panel === 'history' ? 'history' : 'chat',
    scrollTop: typeof saved.scrollTop === 'number' && Number.isFinite(saved.scrollTop) ? saved.scrollTop : 0,
    search: typeof saved.search === 'string' ? saved.search : '',
    chip: chip && typeof chip === 'object' && isId(chip.id) && typeof chip.path === 'string' ? chip : undefined,
  };
}

let current: ViewState = restore(api.getState());

export function viewState(): Readonly<ViewState> {
  return current;
}

/** Merges `changes` into the saved state. */
export function saveState(changes: Partial<ViewState>): void {
  current = { ...current, ...changes };
  api.setState(current);
}
