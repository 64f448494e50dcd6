/** OpenAI's o200k tokenizer (GPT-4o, GPT-4.1, GPT-5, o-series): built as dist/tokenizer.js and required on first count. */
// The package exports its CommonJS build only to require().
export const { countTokens } = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(text: string): number };
