import { CodeSearchError, MAX_GLOB_CHARS } from '../../core/tools/codeSearch';

/** Whether a workspace-relative path (with `/` separators) matches a glob. */
export interface PathMatcher {
  test(path: string): boolean;
}

/**
 * A glob as rg reads one: with a `/` it matches the whole workspace-relative path, without one the
 * file name anywhere; a match on a folder takes in everything under it. `*` `?` `**` `[...]`
 * (`[!...]` negates) `{a,b}`.
 *
 * Why not a RegExp: JavaScript regexes backtrack, and a glob such as `*?*?*?*?*?*?*?*?*?*?:` made
 * one whose test on a long file name took seconds to hours, synchronously, stalling every other
 * call. (picomatch compiles to a RegExp too, so it has the same exposure.) Here the glob is
 * compiled to a Thompson NFA and a path is run through it once, character by character, keeping
 * the set of states reached: each state is visited at most once per character, so a test costs at
 * most O(path length × glob length), whatever the glob. A bad glob (a range out of order, one too
 * long) is a `bad-input` CodeSearchError, which the tools answer with an error result.
 */
export function globMatcher(given: string): PathMatcher {
  if (given.length > MAX_GLOB_CHARS) throw new CodeSearchError('bad-input', `the glob is ${given.length} characters long; at most ${MAX_GLOB_CHARS} are allowed`);
  const glob = given.replace(/^\.\//, '');
  const nfa = new Nfa();
  const accept = nfa.add({ kind: 'accept' });
  // Suffix `(?:/.*)?$`: a match on a folder takes in everything under it.
  const underFolder = nfa.anyLoop(accept);
  const end = nfa.add({ kind: 'split', next: [accept, nfa.add({ kind: 'char', code: SLASH, next: underFolder })] });
  const body = nfa.sequence(new GlobParser(glob).parse(), end);
  // Without a `/` the glob matches a file name anywhere, `(?:^|/)`, i.e. `^(?:.*/)?`.
  const start = glob.includes('/') ? body : nfa.add({ kind: 'split', next: [body, nfa.anyLoop(nfa.add({ kind: 'char', code: SLASH, next: body }))] });
  return { test: (path) => nfa.matches(start, path) };
}

const SLASH = 0x2f;

type Node =
  | { kind: 'char'; code: number }
  /** `?`: one character but `/`. */
  | { kind: 'notSlash' }
  /** `*`: any run of characters but `/`. */
  | { kind: 'star' }
  /** `**` not followed by `/`: any run of characters. */
  | { kind: 'globstar' }
  /** `**` followed by `/`: nothing, or any run of characters ending with `/`. */
  | { kind: 'globstarSlash' }
  | { kind: 'class'; negate: boolean; ranges: number[] }
  | { kind: 'alternatives'; options: Node[][] };

/** The glob's syntax, read as the RegExp translation before this one read it, so ordinary globs match as they did. */
class GlobParser {
  private i = 0;

  constructor(private readonly glob: string) {}

  parse(): Node[] {
    return this.sequence(false)[0];
  }

  /** Nodes up to the end, or inside braces up to `,` or `}`; an unclosed brace is closed at the end. */
  private sequence(inBraces: boolean): [Node[], 'end' | ',' | '}'] {
    const nodes: Node[] = [];
    const { glob } = this;
    while (this.i < glob.length) {
      const c = glob[this.i++];
      if (c === '*' && glob[this.i] === '*') {
        this.i++;
        if (glob[this.i] === '/') {
          this.i++;
          nodes.push({ kind: 'globstarSlash' });
        } else nodes.push({ kind: 'globstar' });
      } else if (c === '*') nodes.push({ kind: 'star' });
      else if (c === '?') nodes.push({ kind: 'notSlash' });
      else if (c === '{') nodes.push(this.alternatives());
      else if (inBraces && (c === ',' || c === '}')) return [nodes, c];
      else if (c === '[' && glob.indexOf(']', this.i + 1) >= 0) nodes.push(this.characterClass());
      else nodes.push({ kind: 'char', code: c.charCodeAt(0) });
    }
    return [nodes, 'end'];
  }

  private alternatives(): Node {
    const options: Node[][] = [];
    for (;;) {
      const [nodes, stop] = this.sequence(true);
      options.push(nodes);
      if (stop !== ',') return { kind: 'alternatives', options };
    }
  }

  /** `[...]` whose `]` is not its first character; `!` or `^` first negates; `a-z` is a range; every other character stands for itself. */
  private characterClass(): Node {
    const close = this.glob.indexOf(']', this.i + 1);
    let content = this.glob.slice(this.i, close);
    this.i = close + 1;
    const negate = content[0] === '!' || content[0] === '^';
    if (negate) content = content.slice(1);
    const ranges: number[] = [];
    for (let k = 0; k < content.length; k++) {
      const low = content.charCodeAt(k);
      if (content[k + 1] === '-' && k + 2 < content.length) {
        const high = content.charCodeAt(k + 2);
        if (high < low) throw new CodeSearchError('bad-input', `the glob's character range ${content.slice(k, k + 3)} is out of order`);
        ranges.push(low, high);
        k += 2;
      } else ranges.push(low, low);
    }
    return { kind: 'class', negate, ranges };
  }
}

type State =
  | { kind: 'char'; code: number; next: number }
  | { kind: 'notSlash' | 'any'; next: number }
  | { kind: 'class'; negate: boolean; ranges: number[]; next: number }
  /** Goes on to every state of `next` without reading a character. */
  | { kind: 'split'; next: number[] }
  | { kind: 'accept' };

class Nfa {
  private readonly states: State[] = [];
  /** Per state, the last step that put it in a set: a state enters each set once. */
  private seen: number[] = [];
  private step = 0;

  add(state: State): number {
    this.states.push(state);
    this.seen.push(-1);
    return this.states.length - 1;
  }

  /** `.*` then `next`. */
  anyLoop(next: number): number {
    return this.loop('any', next);
  }

  /** States for `nodes` then `next`, built from the end; returns the first. */
  sequence(nodes: readonly Node[], next: number): number {
    let entry = next;
    for (let k = nodes.length - 1; k >= 0; k--) entry = this.node(nodes[k], entry);
    return entry;
  }

  private node(node: Node, next: number): number {
    switch (node.kind) {
      case 'char':
        return this.add({ kind: 'char', code: node.code, next });
      case 'notSlash':
        return this.add({ kind: 'notSlash', next });
      case 'star':
        return this.loop('notSlash', next);
      case 'globstar':
        return this.loop('any', next);
      case 'globstarSlash':
        return this.add({ kind: 'split', next: [next, this.loop('any', this.add({ kind: 'char', code: SLASH, next }))] });
      case 'class':
        return this.add({ kind: 'class', negate: node.negate, ranges: node.ranges, next });
      case 'alternatives':
        return this.add({ kind: 'split', next: node.options.map((option) => this.sequence(option, next)) });
    }
  }

  /** `x*` then `next`: a split that reads one `x` and comes back, or goes on. */
  private loop(kind: 'notSlash' | 'any', next: number): number {
    const split = this.add({ kind: 'split', next: [] });
    (this.states[split] as { next: number[] }).next.push(this.add({ kind, next: split }), next);
    return split;
  }

  matches(start: number, path: string): boolean {
    let current: number[] = [];
    this.enter(start, current, ++this.step);
    for (let i = 0; i < path.length && current.length; i++) {
      const code = path.charCodeAt(i);
      const next: number[] = [];
      const step = ++this.step;
      for (const index of current) {
        const state = this.states[index];
        if (state.kind !== 'split' && state.kind !== 'accept' && reads(state, code)) this.enter(state.next, next, step);
      }
      current = next;
    }
    return current.some((index) => this.states[index].kind === 'accept');
  }

  /** Adds `index` to `set`, following splits (the closure), each state once per step. */
  private enter(index: number, set: number[], step: number): void {
    const stack = [index];
    while (stack.length) {
      const at = stack.pop()!;
      if (this.seen[at] === step) continue;
      this.seen[at] = step;
      const state = this.states[at];
      if (state.kind === 'split') for (let k = state.next.length - 1; k >= 0; k--) stack.push(state.next[k]);
      else set.push(at);
    }
  }
}

function reads(state: Exclude<State, { kind: 'split' | 'accept' }>, code: number): boolean {
  switch (state.kind) {
    case 'char':
      return code === state.code;
    case 'notSlash':
      return code !== SLASH;
    case 'any':
      return true;
    case 'class': {
      let inside = false;
      for (let k = 0; k < state.ranges.length && !inside; k += 2) inside = code >= state.ranges[k] && code <= state.ranges[k + 1];
      return inside !== state.negate;
    }
  }
}
