import { isLlmError, LlmError, type Completion, type CompletionRequest, type LanguageModel, type ModelAttempt, type ModelTraits, type StreamCallbacks } from './languageModel';

/** One model of a chain: a provider's adapter, and the `provider/model` it answers as. */
export interface ChainMember {
  name: string;
  /** The model as its provider names it, sent in the request. */
  model: string;
  adapter: LanguageModel;
  /** The window to assume when the adapter cannot say (from the table of known models, or a setting). */
  contextWindow?: number;
}

/** What the chain says to do when every model failed (the settings in the editor, the flags in a terminal). */
export interface ChainAdvice {
  allFailed: string;
}

const ESTIMATE_CHARS_PER_TOKEN = 4;
/** Without a provider's word or a table entry, a window that most current models have. */
const DEFAULT_WINDOW = 128_000;

/** Traits for a model that cannot describe itself: tools on, a common window, counts estimated from characters. */
export function defaultTraits(name: string, contextWindow = DEFAULT_WINDOW): ModelTraits {
  return { name, contextWindow, tools: true, countTokens: (text) => Math.ceil(text.length / ESTIMATE_CHARS_PER_TOKEN), tokenMargin: 0.15 };
}

/**
 * The models to try, in order. The next is tried when one fails: on network errors, 429, 5xx
 * and overloaded after the adapter's own retries, on auth errors (each provider uses its own key),
 * on a missing model, and on a prompt too long, then only by a model with a larger window. Never on
 * cancellation, and never once text has streamed: a cut answer is an error. When every model
 * failed, one error names each and why.
 */
export class FallbackChain implements LanguageModel {
  private readonly traits = new Map<string, Promise<ModelTraits>>();

  constructor(
    readonly members: readonly ChainMember[],
    private readonly advice: ChainAdvice,
    /** Models left out before any request (no key): named first among the attempts. */
    private readonly skipped: readonly ModelAttempt[] = [],
  ) {
    if (!members.length) throw new Error('A fallback chain needs a model.');
  }

  /** The first model's traits: the prompt is built for the model most likely to answer. */
  describe(signal?: AbortSignal): Promise<ModelTraits> {
    return this.traitsOf(this.members[0], signal);
  }

  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    const attempts: ModelAttempt[] = [...this.skipped];
    let failure: LlmError | undefined;
    let tooLongAt: number | undefined;
    for (const member of this.members) {
      if (tooLongAt !== undefined && (await this.traitsOf(member, signal)).contextWindow <= tooLongAt) continue;
      try {
        const completion = await member.adapter.complete({ ...request, model: member.model }, callbacks, signal);
        return { ...completion, model: member.name, ...(attempts.length ? { attempts } : {}) };
      } catch (error) {
        failure = isLlmError(error) ? error : new LlmError('other', `${member.name} failed: ${error instanceof Error ? error.message : String(error)}`);
        if (failure.kind === 'cancelled' || failure.partialText) throw withAttempts(failure, attempts);
        attempts.push({ model: member.name, kind: failure.kind, message: failure.message });
        if (failure.kind === 'context-too-long') tooLongAt = (await this.traitsOf(member, signal)).contextWindow;
      }
    }
    if (attempts.length === 1) throw failure!;
    const tried = attempts.map((attempt) => `${attempt.model} (${attempt.kind}): ${attempt.message}`).join('\n- ');
    throw new LlmError(failure!.kind, `Every model failed:\n- ${tried}\n${this.advice.allFailed}`, failure!.status, undefined, attempts);
  }

  private traitsOf(member: ChainMember, signal?: AbortSignal): Promise<ModelTraits> {
    let traits = this.traits.get(member.name);
    if (!traits) {
      const assumed = defaultTraits(member.name, member.contextWindow);
      // A provider that cannot be asked now (its server is down) still gets a prompt, and is asked again next time; its request will say why it failed.
      traits = member.adapter.describe?.(signal).catch(() => {
        this.traits.delete(member.name);
        return assumed;
      }) ?? Promise.resolve(assumed);
      this.traits.set(member.name, traits);
    }
    return traits;
  }
}

function withAttempts(error: LlmError, attempts: ModelAttempt[]): LlmError {
  if (!attempts.length) return error;
  return new LlmError(error.kind, error.message, error.status, error.partialText, attempts);
}

/** Adds the failures of a completion to those of earlier ones, each model once: a run of many requests names each fallback once. */
export function addAttempts(known: ModelAttempt[], more: readonly ModelAttempt[] = []): void {
  for (const attempt of more) if (!known.some((seen) => seen.model === attempt.model)) known.push(attempt);
}

/** The log entry's record of the models that failed before one answered: which, and why. */
export function failedModelsField(attempts: readonly ModelAttempt[] = []): { failedModels?: { model: string; kind: string }[] } {
  return attempts.length ? { failedModels: attempts.map((attempt) => ({ model: attempt.model, kind: attempt.kind })) } : {};
}
