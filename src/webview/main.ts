import { parseHostMessage, type HostToWebview, type WebviewToHost } from '../shared/protocol';

declare function acquireVsCodeApi(): { postMessage(message: WebviewToHost): void };

const vscode = acquireVsCodeApi();
const status = document.getElementById('status')!;
const actions = document.getElementById('actions')!;

function render(state: Extract<HostToWebview, { type: 'state' }>): void {
  actions.replaceChildren();
  if (!state.trusted) {
    status.textContent = 'Restricted Mode: Repo Wiki only reads this workspace. Trust it to create or change pages.';
    return;
  }
  if (!state.hasWiki) {
    status.textContent = 'This workspace has no wiki yet.';
    actions.append(button('Initialise wiki', 'repoWiki.init'));
    return;
  }
  status.textContent = 'Chat with your wiki arrives in the next release. Meanwhile you can browse Pages, add a page, or lint the wiki.';
  actions.append(button('New page', 'repoWiki.newPage'), button('Lint wiki', 'repoWiki.lint'));
}

function button(label: string, command: 'repoWiki.init' | 'repoWiki.newPage' | 'repoWiki.lint'): HTMLButtonElement {
  const element = document.createElement('button');
  element.textContent = label;
  element.addEventListener('click', () => vscode.postMessage({ type: 'runCommand', command }));
  return element;
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = parseHostMessage(event.data);
  if (message) render(message);
});
vscode.postMessage({ type: 'ready' });
