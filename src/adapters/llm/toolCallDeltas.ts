/** A streamed piece of a tool call, as OpenAI-compatible servers send it. */
export interface ToolCallFragment {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export interface AssembledToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The tool calls of a stream, from their fragments. OpenAI sends `index` and `id` on a call's
 * first fragment and `index` on the rest; llama.cpp omits `id`, LM Studio omits `index`, and some
 * servers send each call whole. A fragment starts a new call when its index is new, when it
 * carries an id other than the current call's, or, without an index, a name while the current
 * call has one; otherwise its arguments continue the current call.
 */
export function assembleToolCalls(fragments: readonly ToolCallFragment[]): AssembledToolCall[] {
  const calls: AssembledToolCall[] = [];
  const byIndex = new Map<number, AssembledToolCall>();
  let current: AssembledToolCall | undefined;
  for (const fragment of fragments) {
    const name = fragment.function?.name;
    const known = fragment.index !== undefined ? byIndex.get(fragment.index) : current;
    const startsNew = !known
      || (fragment.id !== undefined && fragment.id !== '' && known.id !== '' && fragment.id !== known.id)
      || (fragment.index === undefined && !fragment.id && !!name && !!known.name);
    if (startsNew) {
      current = { id: fragment.id ?? '', name: name ?? '', arguments: '' };
      calls.push(current);
      if (fragment.index !== undefined) byIndex.set(fragment.index, current);
    } else {
      current = known;
      if (fragment.id && !current.id) current.id = fragment.id;
      if (name && !current.name) current.name = name;
    }
    current.arguments += fragment.function?.arguments ?? '';
  }
  // Ids the server did not send: the results must still pair with their calls.
  return calls.map((call, i) => ({ ...call, id: call.id || `call_${i + 1}` }));
}
