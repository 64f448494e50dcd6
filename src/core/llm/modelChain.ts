import { FallbackChain, type ChainAdvice } from './fallbackChain';
import type { LanguageModel, ModelAttempt } from './languageModel';
import { knownContextWindow } from './contextWindows';
import { formatModelRef, parseModelRef, type ModelRef } from './modelRef';

/** A provider's adapter for one model, or why it cannot have one (no key, no VS Code model). */
export type MemberOffer = { adapter: LanguageModel } | { missing: string };

export interface ChainSettings {
  /** `provider/model` names: the model, then its fallbacks in order. */
  models: readonly string[];
  /** The window to assume for a model neither its provider nor the table knows (0: none set). */
  contextWindow?: number;
}

export type ChainOffer = { model: FallbackChain; name: string; skipped: ModelAttempt[] } | { missing: ModelAttempt[] };

/**
 * The fallback chain the settings name, of the models that can be had now; a model without a key
 * is skipped, and named first in the attempts so the footer says why it did not answer. Throws a
 * ModelRefError for a name that names no provider.
 */
export async function assembleChain(settings: ChainSettings, offer: (ref: ModelRef) => Promise<MemberOffer>, advice: ChainAdvice): Promise<ChainOffer> {
  const refs = [...new Map(settings.models.map((name) => parseModelRef(name)).map((ref) => [formatModelRef(ref), ref])).values()];
  const skipped: ModelAttempt[] = [];
  const members = [];
  for (const ref of refs) {
    const name = formatModelRef(ref);
    const offered = await offer(ref);
    if ('missing' in offered) {
      skipped.push({ model: name, kind: 'auth', message: offered.missing });
      continue;
    }
    members.push({ name, model: ref.model, adapter: offered.adapter, contextWindow: settings.contextWindow || knownContextWindow(ref) });
  }
  if (!members.length) return { missing: skipped };
  return { model: new FallbackChain(members, advice, skipped), name: members[0].name, skipped };
}
