import { requestTokens } from '../chat/promptBudget';
import type { CompletionRequest, LanguageModel } from '../llm/languageModel';

/**
 * Characters per token when estimating a request before it is sent: on the generous side of the
 * usual 4 (code and JSON take more tokens), so that the estimate does not fall short of the bill.
 */
const ESTIMATE_CHARS_PER_TOKEN = 3;

/** The next request could cost more tokens than the run has left; it was not sent. */
export class BudgetExhaustedError extends Error {
  constructor(readonly needed: number, readonly left: number) {
    super(`The next request could take ${needed} tokens and only ${left} of the budget are left.`);
    this.name = 'BudgetExhaustedError';
  }
}

/** Input and output tokens a run may spend, and what it has spent. */
export class TokenBudget {
  inputTokens = 0;
  outputTokens = 0;
  requests = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.inputTokens + this.outputTokens;
  }

  get left(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** The most a request can cost: its prompt, estimated, and all the output it allows. */
  static worstCase(request: CompletionRequest): number {
    const count = (text: string) => Math.ceil(text.length / ESTIMATE_CHARS_PER_TOKEN);
    return requestTokens(count, { system: request.system, messages: request.messages, tools: request.tools }) + request.maxTokens;
  }
}

/**
 * The model, behind the budget: each request is estimated first and refused with
 * BudgetExhaustedError when it could overrun; what each one really cost is then charged.
 */
export function budgetedModel(model: LanguageModel, budget: TokenBudget): LanguageModel {
  return {
    ...(model.describe ? { describe: (signal?: AbortSignal) => model.describe!(signal) } : {}),
    async complete(request, callbacks, signal) {
      const needed = TokenBudget.worstCase(request);
      if (needed > budget.left) throw new BudgetExhaustedError(needed, budget.left);
      const completion = await model.complete(request, callbacks, signal);
      budget.inputTokens += completion.inputTokens;
      budget.outputTokens += completion.outputTokens;
      budget.requests++;
      return completion;
    },
  };
}
