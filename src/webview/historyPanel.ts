/** The history: every conversation (open, rename, tag, export, delete), a tag filter, and search across them. */
import { MAX_SEARCH_CHARS, MAX_TITLE_CHARS, type ConversationSummary, type SearchHitView } from '../shared/protocol';
import { isTag, MAX_TAG_CHARS, normaliseTag } from '../shared/tags';
import { el, icon, iconButton, inlineEdit } from './dom';
import { clip, fullDate, highlightParts, relativeDate } from './format';
import { familyRoots, lineageText } from './lineage';
import { post, saveState } from './state';

const PAGE_SIZE = 100;
const SEARCH_DELAY_MS = 200;
const MAX_TITLE_SHOWN = 300;

export interface HistoryActions {
  /** Opens a conversation in the chat panel, optionally at one turn. */
  open(conversationId: string, turnIndex?: number): void;
  /** The conversation the chat panel shows. */
  currentId(): string | undefined;
}

export class HistoryPanel {
  readonly root: HTMLElement;
  readonly search: HTMLInputElement;
  private readonly list: HTMLElement;
  private readonly results: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly more: HTMLButtonElement;
  private readonly tagFilter: HTMLSelectElement;
  private items: ConversationSummary[] = [];
  /** Each listed conversation's family root, and the conversations that have forks. */
  private roots = new Map<string, string>();
  private forked = new Set<string>();
  /** Only conversations with this tag are listed ('' lists all). */
  private filterTag = '';
  /** Only this family is listed: conversations that share this root (an original and its forks). */
  private family?: string;
  private readonly familyBar: HTMLElement;
  private shown = PAGE_SIZE;
  private searchTimer?: number;
  /** The query last sent; results for any other are stale. */
  private sentQuery = '';
  private hits?: { query: string; hits: SearchHitView[] };
  /** A list update arrived while a title was being edited. */
  private renderWhenEdited = false;

  constructor(private readonly actions: HistoryActions) {
    this.search = el('input', {
      id: 'search',
      attrs: { type: 'search', placeholder: 'Search all conversations', 'aria-label': 'Search all conversations', maxlength: String(MAX_SEARCH_CHARS), spellcheck: 'false' },
    });
    this.list = el('ul', { class: 'conversation-list', attrs: { 'aria-label': 'Conversations' } });
    this.results = el('ul', { class: 'search-results', hidden: true, attrs: { 'aria-label': 'Search results' } });
    this.empty = el('p', { class: 'history-empty', hidden: true, attrs: { 'aria-live': 'polite' } });
    this.more = el('button', { class: 'show-more secondary', hidden: true, attrs: { type: 'button' } });
    this.tagFilter = el('select', { class: 'tag-filter', hidden: true, attrs: { 'aria-label': 'Show conversations with this tag' } });
    this.tagFilter.addEventListener('change', () => {
      this.filterTag = this.tagFilter.value;
      this.shown = PAGE_SIZE;
      this.renderList();
    });
    this.familyBar = el('div', { class: 'family-filter', hidden: true, attrs: { role: 'status' } });
    this.root = el('section', { id: 'history', class: 'panel', hidden: true, attrs: { 'aria-label': 'Conversations' } }, [
      el('div', { class: 'search-box' }, [icon('search'), this.search]),
      el('div', { class: 'tag-filter-box' }, [this.tagFilter]),
      this.familyBar,
      el('div', { class: 'history-body' }, [this.list, this.more, this.results, this.empty]),
    ]);

    this.search.addEventListener('input', () => {
      saveState({ search: this.search.value });
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => this.runSearch(), SEARCH_DELAY_MS);
      if (!this.search.value.trim()) this.runSearch();
    });
    this.search.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.search.value) {
        event.preventDefault();
        event.stopPropagation();
        this.search.value = '';
        saveState({ search: '' });
        this.runSearch();
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        this.root.querySelector<HTMLElement>('.history-body button')?.focus();
      }
    });
    this.more.addEventListener('click', () => {
      this.shown += PAGE_SIZE;
      this.renderList();
    });
  }

  restoreSearch(query: string): void {
    this.search.value = query.slice(0, MAX_SEARCH_CHARS);
    if (query.trim()) this.runSearch();
  }

  setConversations(items: readonly ConversationSummary[]): void {
    this.items = Array.isArray(items) ? items.filter((item) => item && typeof item.id === 'string') : [];
    this.roots = familyRoots(this.items);
    this.forked = new Set(this.items.flatMap((item) => (typeof item.parentConversationId === 'string' ? [item.parentConversationId] : [])));
    this.renderTagFilter();
    this.renderList();
    // Results may name a conversation that was just deleted or renamed: search again.
    if (this.searching()) this.runSearch(true);
  }

  setResults(query: string, hits: readonly SearchHitView[]): void {
    if (query !== this.sentQuery) return;
    this.hits = { query, hits: Array.isArray(hits) ? hits : [] };
    this.renderResults();
  }

  /** Marks the conversation the chat shows. */
  markCurrent(): void {
    const id = this.actions.currentId();
    for (const item of Array.from(this.list.querySelectorAll<HTMLElement>('.conversation-item'))) item.classList.toggle('current', item.dataset.id === id);
  }

  focus(): void {
    this.search.focus();
  }

  /** Sends the query (unless it was just sent); `again` sends it anyway and keeps the shown hits meanwhile. */
  private runSearch(again = false): void {
    clearTimeout(this.searchTimer);
    const query = this.search.value.slice(0, MAX_SEARCH_CHARS);
    if (!query.trim()) {
      this.sentQuery = '';
      this.hits = undefined;
      this.renderList();
      return;
    }
    if (query === this.sentQuery && !again) return;
    this.sentQuery = query;
    if (!again) this.hits = undefined;
    post({ type: 'search', query });
    this.renderResults();
  }

  private searching(): boolean {
    return !!this.search.value.trim();
  }

  /** One option per tag in use, with its count; a filter whose tag is gone goes back to all. */
  private renderTagFilter(): void {
    const counts = new Map<string, number>();
    for (const item of this.items) for (const tag of tagsOf(item)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    if (!counts.has(this.filterTag)) this.filterTag = '';
    const options = [el('option', { text: 'All conversations', attrs: { value: '' } })];
    for (const [tag, count] of [...counts].sort(([a], [b]) => a.localeCompare(b))) options.push(el('option', { text: `#${tag} (${count})`, attrs: { value: tag } }));
    this.tagFilter.replaceChildren(...options);
    this.tagFilter.value = this.filterTag;
    this.tagFilter.hidden = counts.size === 0 || this.searching();
  }

  private renderList(): void {
    const searching = this.searching();
    this.tagFilter.hidden = searching || this.tagFilter.options.length <= 1;
    this.list.hidden = searching;
    this.results.hidden = !searching;
    if (searching) {
      this.more.hidden = true;
      this.renderResults();
      return;
    }
    if (this.list.querySelector('.rename-input')) {
      this.renderWhenEdited = true; // never pull the field from under the user
      return;
    }
    // Keep keyboard focus on the same control of the same conversation across the re-render.
    const active = document.activeElement instanceof HTMLElement && this.list.contains(document.activeElement) ? document.activeElement : undefined;
    const focusId = active?.closest<HTMLElement>('.conversation-item')?.dataset.id;
    const focusClass = active?.classList.item(active.classList.length - 1);
    const family = this.family;
    const listed = this.items.filter((item) => (!this.filterTag || tagsOf(item).includes(this.filterTag)) && (!family || this.roots.get(item.id) === family));
    this.renderFamilyBar();
    const visible = listed.slice(0, this.shown);
    this.list.replaceChildren(...visible.map((item) => this.itemElement(item)));
    if (focusId && focusClass) this.focusItem(focusId, focusClass);
    this.more.hidden = listed.length <= visible.length;
    this.more.textContent = `Show ${Math.min(PAGE_SIZE, listed.length - visible.length)} more`;
    this.empty.hidden = listed.length > 0;
    this.empty.textContent = this.filterTag ? `No conversation${family ? ' of this family' : ''} is tagged #${this.filterTag}.` : 'No conversations yet. Ask a question in the chat to start one.';
    this.markCurrent();
  }

  /** Lists only the family of `id`; undefined lists every conversation again. */
  private showFamily(id: string | undefined): void {
    this.family = id === undefined ? undefined : this.roots.get(id);
    this.shown = PAGE_SIZE;
    this.renderList();
    (id === undefined ? this.list.querySelector<HTMLElement>('button') : this.familyBar.querySelector<HTMLElement>('button'))?.focus();
  }

  private renderFamilyBar(): void {
    const root = this.family;
    // A family whose every conversation was deleted: back to all.
    if (root && !this.items.some((item) => this.roots.get(item.id) === root)) this.family = undefined;
    this.familyBar.hidden = !this.family;
    if (!this.family) return;
    const original = this.items.find((item) => item.id === root);
    const all = iconButton('close', 'Show all conversations', { class: 'family-clear' });
    all.addEventListener('click', () => this.showFamily(undefined));
    this.familyBar.replaceChildren(icon('type-hierarchy-sub'), el('span', { text: original ? `Family of “${clip(String(original.title), 60)}”` : 'Forks of a deleted conversation' }), all);
  }

  private focusItem(id: string, control: string): void {
    const item = Array.from(this.list.querySelectorAll<HTMLElement>('.conversation-item')).find((li) => li.dataset.id === id);
    (item?.querySelector<HTMLElement>(`button.${control}`) ?? item?.querySelector<HTMLElement>('button'))?.focus();
  }

  private renderResults(): void {
    if (!this.searching()) return;
    this.list.hidden = true;
    this.more.hidden = true;
    this.results.hidden = false;
    if (!this.hits) {
      this.results.replaceChildren();
      this.empty.hidden = false;
      this.empty.textContent = 'Searching…';
      return;
    }
    const { query, hits } = this.hits;
    this.results.replaceChildren(...hits.map((hit) => this.hitElement(hit, query)));
    this.empty.hidden = hits.length > 0;
    this.empty.textContent = `No conversation mentions “${clip(query.trim(), 80)}”.`;
  }

  private itemElement(item: ConversationSummary): HTMLElement {
    const title = clip(String(item.title || 'Untitled conversation'), MAX_TITLE_SHOWN);
    const shortTitle = clip(title, 60);
    const turns = Number(item.turnCount) || 0;
    const titleEl = el('span', { class: 'conversation-title', text: title });
    const tags = tagsOf(item);
    const open = el('button', { class: 'conversation-open', title: `${clip(title, 200)} — ${fullDate(item.updated)}`, attrs: { type: 'button' } }, [
      titleEl,
      el('span', { class: 'conversation-meta' }, [
        el('span', { text: [relativeDate(item.updated), `${turns} ${turns === 1 ? 'turn' : 'turns'}`].filter(Boolean).join(' · ') }),
        lineage(item, this.items),
        item.filedPage ? el('span', { class: 'filed-badge', title: `Saved to the wiki as [[${clip(String(item.filedPage), 80)}]]` }, [icon('book'), el('span', { text: 'in wiki' })]) : undefined,
      ]),
    ]);
    open.addEventListener('click', () => this.actions.open(item.id));
    const tagRow = tags.length ? el('div', { class: 'tag-row', attrs: { role: 'list', 'aria-label': `Tags of “${shortTitle}”` } }, tags.map((tag) => {
      const remove = iconButton('close', `Remove tag ${tag} from “${shortTitle}”`, { class: 'tag-remove' });
      remove.addEventListener('click', () => post({ type: 'removeTag', conversationId: item.id, tag }));
      return el('span', { class: 'tag-chip', attrs: { role: 'listitem' } }, [el('span', { text: `#${tag}` }), remove]);
    })) : undefined;

    const addTag = iconButton('tag', `Add a tag to “${shortTitle}”`, { class: 'add-tag' });
    addTag.addEventListener('click', () => {
      inlineEdit(open, '', {
        label: 'New tags, separated by commas',
        maxLength: MAX_TAG_CHARS * 4,
        commit: (typed) => {
          for (const tag of new Set(typed.split(',').flatMap((part) => normaliseTag(part) ?? []))) post({ type: 'addTag', conversationId: item.id, tag });
        },
        done: () => addTag.focus(),
      });
    });

    const rename = iconButton('edit', `Rename “${shortTitle}”`, { class: 'rename' });
    rename.addEventListener('click', () => {
      inlineEdit(open, String(item.title ?? ''), {
        label: 'Conversation title',
        maxLength: MAX_TITLE_CHARS,
        commit: (next) => {
          titleEl.textContent = clip(next, MAX_TITLE_SHOWN);
          post({ type: 'rename', conversationId: item.id, title: next });
        },
        done: () => {
          if (this.renderWhenEdited) {
            this.renderWhenEdited = false;
            this.renderList();
            this.focusItem(item.id, 'rename');
          } else rename.focus();
        },
      });
    });
    const exportMarkdown = iconButton('markdown', `Export “${shortTitle}” as Markdown`, { class: 'export-markdown' });
    exportMarkdown.addEventListener('click', () => post({ type: 'export', conversationId: item.id, format: 'markdown' }));
    const exportJson = iconButton('json', `Export “${shortTitle}” as JSON`, { class: 'export-json' });
    exportJson.addEventListener('click', () => post({ type: 'export', conversationId: item.id, format: 'json' }));
    const remove = iconButton('trash', `Delete “${shortTitle}”`, { class: 'delete' });
    remove.addEventListener('click', () => post({ type: 'delete', conversationId: item.id }));

    // An original with forks, or a fork: "family" lists them together.
    const related = typeof item.parentConversationId === 'string' || this.forked.has(item.id);
    const familyLink = related && !this.family ? el('button', { class: 'family-link link-button', text: 'family', title: `Show “${shortTitle}” with the conversations forked from the same one`, attrs: { type: 'button' } }) : undefined;
    familyLink?.addEventListener('click', () => this.showFamily(item.id));

    return el('li', { class: 'conversation-item', data: { id: item.id } }, [
      el('div', { class: 'conversation-main' }, [open, familyLink, tagRow]),
      el('div', { class: 'item-actions' }, [rename, addTag, exportMarkdown, exportJson, remove]),
    ]);
  }

  private hitElement(hit: SearchHitView, query: string): HTMLElement {
    const snippet = el('span', { class: 'hit-snippet' });
    for (const part of highlightParts(clip(String(hit.snippet ?? ''), 400), query)) {
      snippet.append(part.match ? el('mark', { text: part.text }) : document.createTextNode(part.text));
    }
    const turn = Number(hit.turnIndex);
    const button = el('button', { class: 'search-hit', attrs: { type: 'button' } }, [
      el('span', { class: 'conversation-title', text: clip(String(hit.conversationTitle || 'Untitled conversation'), MAX_TITLE_SHOWN) }),
      snippet,
      hit.tags ? undefined : Number.isInteger(turn) ? el('span', { class: 'conversation-meta', text: `Turn ${turn + 1}` }) : undefined,
    ]);
    // A tag hit is about the whole conversation: it opens at the start.
    button.addEventListener('click', () => this.actions.open(hit.conversationId, !hit.tags && Number.isInteger(turn) ? turn : undefined));
    return el('li', { class: 'search-result' }, [button]);
  }
}

/** "forked from “Auth flow” at turn 3", under a fork's title. */
function lineage(item: ConversationSummary, items: readonly ConversationSummary[]): HTMLElement | undefined {
  const text = lineageText(item, items);
  return text ? el('span', { class: 'lineage', text }) : undefined;
}

/** The item's tags, as far as they are tags (the host sends only valid ones; the view still checks). */
function tagsOf(item: ConversationSummary): string[] {
  return Array.isArray(item.tags) ? item.tags.filter(isTag) : [];
}
