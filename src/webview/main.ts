/** The chat view: builds the UI inside #app, restores the saved view state and dispatches host messages. */
import { MAX_TITLE_CHARS, parseHostMessage, type HostToWebview } from '../shared/protocol';
import { ChatPanel } from './chatPanel';
import { el, icon, iconButton, inlineEdit, textButton } from './dom';
import { clip } from './format';
import { HistoryPanel } from './historyPanel';
import { isSlug } from './markdown';
import { post, saveState, viewState, type Panel } from './state';

const NOTICE_MS = 6000;
/** The host reads citations up to this length. */
const MAX_CITATION_CHARS = 500;
const UNDO_MS = 10_000;

const app = document.getElementById('app') ?? document.body.appendChild(el('div', { id: 'app' }));

// ---- status line and toast --------------------------------------------------------------------

const status = el('div', { id: 'status', attrs: { role: 'status', 'aria-live': 'polite' } });
let notice: { text: string; timer: number } | undefined;

function showNotice(text: string): void {
  if (notice) clearTimeout(notice.timer);
  notice = { text: clip(text, 500), timer: window.setTimeout(() => { notice = undefined; updateStatus(); }, NOTICE_MS) };
  updateStatus();
}

const toast = el('div', { id: 'toast', class: 'toast', hidden: true, attrs: { role: 'status', 'aria-live': 'polite' } });
let toastTimer: number | undefined;

function showUndoToast(conversationId: string, title: string): void {
  clearTimeout(toastTimer);
  const undo = textButton('Undo', { class: 'undo secondary' });
  const close = iconButton('close', 'Dismiss', { class: 'toast-close' });
  const hide = () => {
    clearTimeout(toastTimer);
    toast.hidden = true;
    toast.replaceChildren();
  };
  undo.addEventListener('click', () => {
    post({ type: 'undoDelete', conversationId });
    hide();
  });
  close.addEventListener('click', hide);
  toast.replaceChildren(el('span', { class: 'toast-text', text: `Deleted “${clip(title, 60)}”` }), undo, close);
  toast.hidden = false;
  toastTimer = window.setTimeout(hide, UNDO_MS);
}

// ---- panels --------------------------------------------------------------------------------------

const chat = new ChatPanel(() => refresh(), showNotice);
const history = new HistoryPanel({
  open: (conversationId, turnIndex) => {
    setPanel('chat');
    chat.open(conversationId, turnIndex);
  },
  currentId: () => chat.conversation?.id,
});

// ---- toolbar -------------------------------------------------------------------------------------

const showHistory = iconButton('history', 'Show conversations', { id: 'show-history', attrs: { 'aria-controls': 'history' } });
const titleText = el('span', { class: 'title-text' });
const title = el('div', { class: 'toolbar-title' }, [titleText]);
const newConversation = iconButton('add', 'New conversation', { id: 'new-conversation' });
const saveToWiki = iconButton('save', 'Save to wiki', { id: 'save-to-wiki' });
const moreButton = iconButton('ellipsis', 'More actions for this conversation', { id: 'conversation-actions', attrs: { 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-controls': 'conversation-menu' } });
const menuItem = (id: string, label: string, iconName: string) => {
  const item = textButton(label, { id, attrs: { role: 'menuitem' } }, iconName);
  item.tabIndex = -1;
  return item;
};
const renameItem = menuItem('rename-conversation', 'Rename', 'edit');
const exportMarkdownItem = menuItem('export-markdown', 'Export as Markdown', 'markdown');
const exportJsonItem = menuItem('export-json', 'Export as JSON', 'json');
const deleteItem = menuItem('delete-conversation', 'Delete', 'trash');
const menu = el('div', { id: 'conversation-menu', class: 'menu', hidden: true, attrs: { role: 'menu', 'aria-label': 'Conversation actions' } }, [renameItem, exportMarkdownItem, exportJsonItem, deleteItem]);
const toolbar = el('header', { class: 'toolbar' }, [
  showHistory,
  title,
  el('div', { class: 'toolbar-actions' }, [newConversation, saveToWiki, el('div', { class: 'menu-anchor' }, [moreButton, menu])]),
]);
const banner = el('div', { id: 'banner' });

let panel: Panel = 'chat';

function setPanel(next: Panel, focus = true): void {
  panel = next;
  saveState({ panel });
  chat.root.hidden = panel !== 'chat';
  history.root.hidden = panel !== 'history';
  if (panel === 'chat') chat.restoreScroll();
  // The terminal (repo-wiki query --conversation) or another window may have added conversations.
  else post({ type: 'listConversations' });
  closeMenu();
  if (focus) (panel === 'history' ? history.focus() : chat.focusInput());
  refresh();
}

function openMenu(focusFirst: boolean): void {
  menu.hidden = false;
  moreButton.setAttribute('aria-expanded', 'true');
  if (focusFirst) menuItems()[0]?.focus();
}

function closeMenu(focusButton = false): void {
  if (menu.hidden) return;
  menu.hidden = true;
  moreButton.setAttribute('aria-expanded', 'false');
  if (focusButton) moreButton.focus();
}

const menuItems = () => Array.from(menu.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')).filter((item) => !item.disabled);

showHistory.addEventListener('click', () => setPanel(panel === 'chat' ? 'history' : 'chat'));
newConversation.addEventListener('click', () => {
  setPanel('chat');
  post({ type: 'newConversation' });
});
saveToWiki.addEventListener('click', () => {
  const id = chat.conversation?.id;
  if (id) {
    post({ type: 'saveToWiki', conversationId: id });
    showNotice('Saving the conversation to the wiki…');
  }
});
moreButton.addEventListener('click', (event) => (menu.hidden ? openMenu(event.detail === 0) : closeMenu()));
moreButton.addEventListener('keydown', (event) => {
  if (event.key === 'ArrowDown' && menu.hidden) {
    event.preventDefault();
    openMenu(true);
  }
});
menu.addEventListener('keydown', (event) => {
  const items = menuItems();
  const at = items.indexOf(document.activeElement as HTMLButtonElement);
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    items[(at + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
  } else if (event.key === 'Escape') {
    event.preventDefault();
    event.stopPropagation();
    closeMenu(true);
  } else if (event.key === 'Tab') {
    closeMenu();
  }
});
document.addEventListener('click', (event) => {
  if (!menu.hidden && !(event.target instanceof Node && (menu.contains(event.target) || moreButton.contains(event.target)))) closeMenu();
});
renameItem.addEventListener('click', () => {
  closeMenu();
  const conversation = chat.conversation;
  if (!conversation) return;
  inlineEdit(titleText, conversation.title, {
    label: 'Conversation title',
    maxLength: MAX_TITLE_CHARS,
    commit: (next) => {
      if (chat.conversation?.id === conversation.id) chat.conversation = { ...chat.conversation, title: next };
      post({ type: 'rename', conversationId: conversation.id, title: next });
      refresh();
    },
    done: () => moreButton.focus(),
  });
});
for (const [item, format] of [[exportMarkdownItem, 'markdown'], [exportJsonItem, 'json']] as const) {
  item.addEventListener('click', () => {
    closeMenu(true);
    const id = chat.conversation?.id;
    if (id) post({ type: 'export', conversationId: id, format });
  });
}
deleteItem.addEventListener('click', () => {
  closeMenu();
  const id = chat.conversation?.id;
  if (id) post({ type: 'delete', conversationId: id });
  chat.focusInput();
});

// ---- rendering of shared chrome --------------------------------------------------------------------

function refresh(): void {
  const conversation = chat.conversation;
  const busy = !!chat.pending;
  const inChat = panel === 'chat';
  titleText.textContent = inChat ? clip(conversation?.title || 'New conversation', 300) : 'Conversations';
  title.title = inChat && conversation ? clip(conversation.title, 500) : '';
  showHistory.setAttribute('aria-label', inChat ? 'Show conversations' : 'Back to the chat');
  showHistory.title = inChat ? 'Show conversations' : 'Back to the chat';
  const historyIcon = inChat ? 'history' : 'arrow-left';
  if (!showHistory.querySelector(`.codicon-${historyIcon}`)) showHistory.replaceChildren(icon(historyIcon));

  const canSave = !!conversation && chat.hasTurns && !busy && chat.host.trusted && chat.host.hasWiki;
  saveToWiki.hidden = !inChat;
  saveToWiki.disabled = !canSave;
  const saveLabel = !chat.host.trusted ? 'Save to wiki (not available in Restricted Mode)'
    : conversation?.filedPage ? `Save to wiki (updates [[${clip(conversation.filedPage, 80)}]])` : 'Save to wiki';
  saveToWiki.title = saveLabel;
  saveToWiki.setAttribute('aria-label', saveLabel);
  moreButton.hidden = !inChat;
  moreButton.disabled = !conversation || !chat.hasTurns;
  if (moreButton.disabled) closeMenu();
  history.markCurrent();
  updateBanner();
  updateStatus();
}

let bannerKey = '';

function updateBanner(): void {
  const host = chat.host;
  const key = JSON.stringify(host);
  if (key === bannerKey) return; // re-creating it would drop the focus of its button
  bannerKey = key;
  if (!host.known || !host.hasWiki) {
    banner.replaceChildren();
    return;
  }
  if (!host.trusted) {
    banner.replaceChildren(el('div', { class: 'banner restricted' }, [
      icon('shield'),
      el('span', { text: 'Restricted Mode: chat is offline-only. Answers come from searching the wiki, and nothing is sent to a model.' }),
    ]));
  } else if (host.offline) {
    const setUp = textButton('Set up a model', { class: 'secondary set-up-model', title: 'Anthropic, OpenAI or a compatible server, Azure OpenAI, Ollama on this machine, or a VS Code model' }, 'sparkle');
    setUp.addEventListener('click', () => post({ type: 'runCommand', command: 'repoWiki.setUpModel' }));
    // Kept to one short line and one button: a tall banner squeezes the composer in a short pane.
    banner.replaceChildren(el('div', { class: 'banner offline' }, [icon('info'), el('span', { text: 'Offline answers — set up a model for written ones.' }), setUp]));
  } else {
    banner.replaceChildren();
  }
}

function updateStatus(): void {
  let text: string;
  if (notice) text = notice.text;
  else if (chat.host.known && !chat.host.hasWiki) text = 'Chat with your wiki: initialise a wiki for this workspace first.';
  else if (chat.pending) text = chat.retrying ?? (chat.pending.stopping ? 'Stopping…' : 'Answering… (Escape stops)');
  else if (!chat.hasTurns) text = 'Chat with your wiki: ask about this codebase. Enter sends, Shift+Enter adds a line.';
  else text = '';
  if (status.textContent !== text) status.textContent = text;
}

// ---- clicks inside rendered content ---------------------------------------------------------------

app.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button') : null;
  if (!button) return;
  if (button.classList.contains('page-link')) {
    const slug = button.dataset.slug ?? '';
    if (isSlug(slug)) post({ type: 'openPage', slug });
  } else if (button.classList.contains('code-link')) {
    const citation = button.dataset.citation ?? '';
    if (citation && citation.length <= MAX_CITATION_CHARS) post({ type: 'openCitation', citation });
  } else if (button.classList.contains('copy-code')) {
    const code = button.parentElement?.querySelector('pre code')?.textContent ?? '';
    post({ type: 'copy', text: code });
  }
});

document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || event.defaultPrevented) return;
  if (!menu.hidden) closeMenu(true);
  else if (chat.pending) chat.stop();
  else if (panel === 'history') setPanel('chat');
});

// ---- host messages -------------------------------------------------------------------------------

function dispatch(message: HostToWebview): void {
  switch (message.type) {
    case 'state':
      chat.setHostState(message);
      break;
    case 'conversations': {
      const items = Array.isArray(message.items) ? message.items : [];
      history.setConversations(items);
      chat.onConversations(items);
      break;
    }
    case 'conversation':
      // A new, empty conversation was asked for (here or from the view's title bar): show the chat.
      if (!message.conversation && panel !== 'chat') setPanel('chat');
      chat.showConversation(message);
      break;
    case 'turnStarted':
      chat.onTurnStarted(message);
      break;
    case 'context':
      chat.onContext(message);
      break;
    case 'delta':
      chat.onDelta(message);
      return; // nothing else changes while text streams
    case 'toolStep':
      chat.onToolStep(message);
      return;
    case 'retrying':
      chat.onRetrying(message);
      break;
    case 'turnDone':
      chat.onTurnDone(message);
      break;
    case 'turnFailed':
      chat.onTurnFailed(message);
      break;
    case 'searchResults':
      history.setResults(String(message.query ?? ''), message.hits);
      break;
    case 'selection':
      if (panel !== 'chat') setPanel('chat', false);
      chat.onSelection(message);
      break;
    case 'deleted':
      chat.onDeleted(message.conversationId);
      showUndoToast(message.conversationId, String(message.title ?? ''));
      break;
    case 'filed':
      chat.onFiled(message);
      if (isSlug(String(message.slug))) showNotice(`Saved as [[${message.slug}]].`);
      break;
    case 'notice':
      showNotice(String(message.message ?? ''));
      break;
  }
  refresh();
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = parseHostMessage(event.data);
  if (!message) return;
  try {
    dispatch(message);
  } catch (error) {
    console.error('Repo Wiki chat: could not handle', message.type, error);
  }
});

// ---- start -----------------------------------------------------------------------------------------

app.replaceChildren(toolbar, banner, chat.root, history.root, toast, status);
const saved = viewState();
chat.restoreDraft(saved.draft, saved.chip);
setPanel(saved.panel, false);
// The host answers nothing before `ready`; then it sends the state and the conversation list.
post({ type: 'ready' });
if (saved.conversationId) chat.reopen(saved.conversationId, saved.scrollTop);
history.restoreSearch(saved.search);
refresh();
