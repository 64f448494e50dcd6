/**
 * Text that looks like a credential: what is refused before it is stored where people and git will
 * find it (an agent's proposed page). The patterns are those of gitleaks' default rules
 * (config/gitleaks.toml; rule ids in the comments), each one a token with a fixed, registered
 * prefix, so that ordinary prose and code never match. Where gitleaks pins an exact length
 * (Anthropic's keys), a shorter run of key characters is refused too, so a key cut or mangled on
 * its way into a page is still caught. Each pattern is linear: one prefix, then bounded runs.
 */
const SECRET_PATTERNS: readonly { what: string; pattern: RegExp }[] = [
  // anthropic-api-key, anthropic-admin-api-key: sk-ant-api03-… / sk-ant-admin01-…
  { what: 'an Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  // openai-api-key (the project and service-account keys by their prefix alone, as Anthropic's above)
  { what: 'an OpenAI API key', pattern: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}/ },
  // aws-access-token (gitleaks lets keys ending in EXAMPLE through; a page needs no key at all, so they are refused too)
  { what: 'an AWS access key id', pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/ },
  // github-pat, github-oauth, github-app-token, github-refresh-token, github-fine-grained-pat
  { what: 'a GitHub token', pattern: /\bgh[pousr]_[0-9A-Za-z]{36}\b|\bgithub_pat_\w{82}/ },
  // gitlab-pat
  { what: 'a GitLab token', pattern: /\bglpat-[\w-]{20}/ },
  // slack-bot-token, slack-user-token, slack-config-access-token
  { what: 'a Slack token', pattern: /\bxoxb-\d{10,13}-\d{10,13}|\bxox[pe](?:-\d{10,13}){3}-[A-Za-z0-9-]{28,34}|\bxox[ar]-(?:\d-)?[0-9A-Za-z]{8,48}\b/ },
  // stripe-access-token
  { what: 'a Stripe key', pattern: /\b(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}\b/ },
  // gcp-api-key
  { what: 'a Google API key', pattern: /\bAIza[\w-]{35}/ },
  // npm-access-token, huggingface-access-token
  { what: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { what: 'a Hugging Face token', pattern: /\bhf_[A-Za-z]{34}\b/ },
  // sendgrid-api-token
  { what: 'a SendGrid key', pattern: /\bSG\.[A-Za-z0-9=_.-]{66}/ },
  // private-key: the armour line is enough; a page never needs one
  { what: 'a private key', pattern: /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/ },
];

/** What the first credential-looking token in `text` seems to be, and where; undefined when there is none. */
export function findSecret(text: string): { what: string; index: number; sample: string } | undefined {
  let first: { what: string; index: number; sample: string } | undefined;
  for (const { what, pattern } of SECRET_PATTERNS) {
    const match = pattern.exec(text);
    if (match && (!first || match.index < first.index)) first = { what, index: match.index, sample: `${match[0].slice(0, 8)}…` };
  }
  return first;
}
