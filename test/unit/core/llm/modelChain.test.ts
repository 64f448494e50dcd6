import * as assert from 'node:assert/strict';
import { knownContextWindow } from '../../../../src/core/llm/contextWindows';
import { FallbackChain } from '../../../../src/core/llm/fallbackChain';
import { LlmError, type Completion, type CompletionRequest, type LanguageModel, type LlmErrorKind } from '../../../../src/core/llm/languageModel';
import { assembleChain } from '../../../../src/core/llm/modelChain';
import { configuredModel, parseModelRef } from '../../../../src/core/llm/modelRef';

const REQUEST: CompletionRequest = { model: 'settings-model', maxTokens: 100, system: [{ text: 's' }], messages: [{ role: 'user', content: 'q' }] };

/** A model that fails with `kind` (after streaming `partial`, if any), or answers. */
function fake(outcome: { fail?: LlmErrorKind; partial?: string; text?: string; window?: number }): LanguageModel & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  return {
    requests,
    async describe() {
      return { name: 'x', contextWindow: outcome.window ?? 100_000, tools: true, countTokens: (t: string) => t.length, tokenMargin: 0 };
    },
    async complete(request, callbacks): Promise<Completion> {
      requests.push(request);
      if (outcome.partial) callbacks.onText(outcome.partial);
      if (outcome.fail) throw new LlmError(outcome.fail, `${outcome.fail} happened`, undefined, outcome.partial);
      return { text: outcome.text ?? 'ok', model: request.model, inputTokens: 1, outputTokens: 1, stopReason: 'end_turn' };
    },
  };
}
const chain = (...members: [string, LanguageModel][]) => new FallbackChain(members.map(([name, adapter]) => ({ name, model: name.slice(name.indexOf('/') + 1), adapter })), { allFailed: 'Do this next.' });
const rejection = (promise: Promise<unknown>) => promise.then(() => assert.fail('expected a rejection'), (error: LlmError) => error);

describe('model names (provider/model)', () => {
  it('parses the provider and keeps the rest of the name whole', () => {
    assert.deepEqual(parseModelRef('ollama/qwen2.5-coder:7b'), { provider: 'ollama', model: 'qwen2.5-coder:7b' });
    assert.deepEqual(parseModelRef('openai/anthropic/claude-3.5'), { provider: 'openai', model: 'anthropic/claude-3.5' });
    assert.deepEqual(parseModelRef('azure/my-deployment'), { provider: 'azure', model: 'my-deployment' });
    assert.deepEqual(parseModelRef('vscode'), { provider: 'vscode', model: '' });
  });

  it('reads a name without a provider as a Claude model, as the setting held before', () => {
    assert.deepEqual(parseModelRef('claude-sonnet-5-5'), { provider: 'anthropic', model: 'claude-sonnet-5-5' });
  });

  it('refuses an unknown provider, naming the ones there are', () => {
    assert.throws(() => parseModelRef('bedrock/claude'), /Unknown provider "bedrock".*anthropic, openai, azure, ollama, vscode/);
    assert.throws(() => parseModelRef('openai/'), /names no model/);
    assert.throws(() => parseModelRef(''), /No model named/);
  });

  it('keeps the old provider setting working while the model is unset', () => {
    assert.equal(configuredModel({ modelIsSet: false, legacyProvider: 'vscode', vscodeFamily: 'gpt-4o', defaultModel: 'anthropic/x' }), 'vscode/gpt-4o');
    assert.equal(configuredModel({ model: 'ollama/llama3.2', modelIsSet: true, legacyProvider: 'vscode', defaultModel: 'anthropic/x' }), 'ollama/llama3.2');
    assert.equal(configuredModel({ modelIsSet: false, legacyProvider: 'anthropic', defaultModel: 'anthropic/x' }), 'anthropic/x');
  });

  it('knows the windows of well-known models, whoever serves them', () => {
    assert.equal(knownContextWindow(parseModelRef('anthropic/claude-sonnet-5-5')), 200_000);
    assert.equal(knownContextWindow(parseModelRef('openai/gpt-4.1-mini')), 1_047_576);
    assert.equal(knownContextWindow(parseModelRef('openai/gpt-4o')), 128_000);
    assert.equal(knownContextWindow(parseModelRef('openai/meta/llama3.1:8b')), 131_072);
    assert.equal(knownContextWindow(parseModelRef('azure/my-deployment')), undefined);
  });
});

describe('the fallback chain', () => {
  for (const kind of ['network', 'rate-limit', 'overloaded', 'auth', 'model-not-found', 'other'] as const) {
    it(`tries the next model after ${kind}, and names the one that answered and the one that failed`, async () => {
      const second = fake({ text: 'answered' });
      const result = await chain(['anthropic/a', fake({ fail: kind })], ['ollama/b', second]).complete(REQUEST, { onText: () => {} });
      assert.equal(result.text, 'answered');
      assert.equal(result.model, 'ollama/b');
      assert.equal(second.requests[0].model, 'b', 'each model is asked by its own name');
      assert.deepEqual(result.attempts, [{ model: 'anthropic/a', kind, message: `${kind} happened` }]);
    });
  }

  it('never falls back on cancellation', async () => {
    const second = fake({});
    const error = await rejection(chain(['a/x', fake({ fail: 'cancelled' })], ['b/y', second]).complete(REQUEST, { onText: () => {} }));
    assert.equal(error.kind, 'cancelled');
    assert.equal(second.requests.length, 0);
  });

  it('never falls back once text has streamed: a cut answer is an error', async () => {
    const second = fake({});
    const error = await rejection(chain(['anthropic/x', fake({ fail: 'network', partial: 'Half an ans' })], ['ollama/y', second]).complete(REQUEST, { onText: () => {} }));
    assert.equal(error.kind, 'network');
    assert.equal(error.partialText, 'Half an ans');
    assert.equal(second.requests.length, 0);
  });

  it('after a prompt too long, skips models whose window is no larger', async () => {
    const small = fake({ window: 8000 });
    const large = fake({ window: 200_000, text: 'fits' });
    const result = await chain(['ollama/a', fake({ fail: 'context-too-long', window: 32_000 })], ['ollama/small', small], ['anthropic/large', large]).complete(REQUEST, { onText: () => {} });
    assert.equal(result.text, 'fits');
    assert.equal(small.requests.length, 0);
  });

  it('when every model fails, one error names each model and why, and what to do next', async () => {
    const error = await rejection(chain(['anthropic/a', fake({ fail: 'overloaded' })], ['ollama/b', fake({ fail: 'network' })]).complete(REQUEST, { onText: () => {} }));
    assert.match(error.message, /Every model failed:\n- anthropic\/a \(overloaded\): overloaded happened\n- ollama\/b \(network\): network happened\nDo this next\./);
    assert.equal(error.attempts?.length, 2);
  });

  it('a single model fails with its own message, as before chains', async () => {
    const error = await rejection(chain(['anthropic/a', fake({ fail: 'auth' })]).complete(REQUEST, { onText: () => {} }));
    assert.equal(error.message, 'auth happened');
  });

  it('skips models without a key, and names them first among the attempts', async () => {
    const offer = await assembleChain({ models: ['anthropic/a', 'ollama/b', 'ollama/b'] }, async (ref) => (ref.provider === 'anthropic' ? { missing: 'no API key' } : { adapter: fake({ text: 'local' }) }), { allFailed: '' });
    assert.ok('model' in offer);
    assert.equal(offer.model.members.length, 1, 'a model named twice is asked once');
    const result = await offer.model.complete(REQUEST, { onText: () => {} });
    assert.deepEqual(result.attempts, [{ model: 'anthropic/a', kind: 'auth', message: 'no API key' }]);
  });

  it('with no model available, says which and why', async () => {
    const offer = await assembleChain({ models: ['anthropic/a'] }, async () => ({ missing: 'no API key' }), { allFailed: '' });
    assert.deepEqual(offer, { missing: [{ model: 'anthropic/a', kind: 'auth', message: 'no API key' }] });
  });
});
