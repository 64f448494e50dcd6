/** Tiny DOM helpers. Text always goes in through `textContent`; nothing here parses HTML. */

export type Child = Node | string | null | undefined | false;

export interface Props {
  id?: string;
  class?: string;
  text?: string;
  title?: string;
  hidden?: boolean;
  /** Plain attributes (aria-*, role, type, placeholder, …); never event handlers or URLs. */
  attrs?: Record<string, string>;
  data?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.id) element.id = props.id;
  if (props.class) element.className = props.class;
  if (props.title) element.title = props.title;
  if (props.hidden) element.hidden = true;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  for (const [name, value] of Object.entries(props.data ?? {})) element.dataset[name] = value;
  if (props.text !== undefined) element.textContent = props.text;
  append(element, children);
  return element;
}

export function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child);
  }
}

/** A decorative codicon (hidden from screen readers). */
export function icon(name: string, extra = ''): HTMLSpanElement {
  return el('span', { class: `codicon codicon-${name}${extra ? ` ${extra}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

/** A button showing only an icon; `label` is its accessible name and tooltip. */
export function iconButton(iconName: string, label: string, props: Props = {}): HTMLButtonElement {
  const button = el('button', { ...props, class: `icon-button${props.class ? ` ${props.class}` : ''}`, title: props.title ?? label, attrs: { type: 'button', 'aria-label': label, ...props.attrs } });
  button.append(icon(iconName));
  return button;
}

/** A button with a text label and an optional leading icon. */
export function textButton(label: string, props: Props = {}, iconName?: string): HTMLButtonElement {
  const button = el('button', { ...props, attrs: { type: 'button', ...props.attrs } });
  if (iconName) button.append(icon(iconName));
  button.append(el('span', { text: label }));
  return button;
}


/**
 * Swaps `target` for a text input to edit `value` in place. Enter or leaving the field commits
 * (when the text changed and is not empty), Escape cancels; `target` comes back either way.
 */
export function inlineEdit(target: HTMLElement, value: string, options: { label: string; maxLength: number; commit(value: string): void; done?(): void }): void {
  const input = el('input', { class: 'rename-input', attrs: { type: 'text', 'aria-label': options.label, maxlength: String(options.maxLength) } });
  input.value = value.slice(0, options.maxLength);
  let finished = false;
  const finish = (save: boolean) => {
    if (finished) return;
    finished = true;
    const next = input.value.trim();
    input.replaceWith(target);
    if (save && next && next !== value) options.commit(next);
    options.done?.();
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      finish(true);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      finish(false);
    }
  });
  input.addEventListener('blur', () => finish(true));
  target.replaceWith(input);
  input.focus();
  input.select();
}
