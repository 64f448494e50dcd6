type Counter = (text: string) => number;

let counter: Counter | undefined;

/** Counts with OpenAI's o200k tokenizer, loaded on first use (its ranks are 2 MB). */
export function openAiTokenCounter(): Counter {
  return (text) => (counter ??= (require('./o200k') as typeof import('./o200k')).countTokens)(text); // tokenizer.js beside llm.js
}
