import * as z from 'zod/mini';
import { PLAN_LIMITS, PLAN_TOPICS } from '../ingest/plan';
import { proposePageChange, type ProposalContext } from '../proposals/review';
import type { WikiTool } from './tool';
import { defineTool, failure, field, plural, success } from './toolKit';

const text = (description: string) => z.string().check(z.describe(description));

const input = z.strictObject({
  slug: text('The page slug: lowercase a-z, 0-9 and single hyphens, e.g. "retry-policy". An existing slug (from search_wiki) rewrites that page; a new one creates a page.'),
  title: text(`The page title, one line of at most ${PLAN_LIMITS.titleChars} characters.`),
  topic: z.enum(PLAN_TOPICS as [string, ...string[]], { error: `expected one of ${PLAN_TOPICS.join(', ')}` }).check(z.describe('What kind of knowledge the page holds.')),
  summary: text(`One line of at most ${PLAN_LIMITS.summaryChars} characters; the index and search show it.`),
  body: text(
    `The whole markdown body of the page (at most ${PLAN_LIMITS.bodyBytes / 1024} KB). Cite code in backticks as \`path/to/file.ts:Symbol\`, ` +
      '`path/to/file.ts:Class.member` or `path/to/file.ts`; every citation must exist in the code now. Link pages as [[slug]].',
  ),
  reason: text('Why the page should change: what you learned and where (the task, the files you read). The reviewer reads it first.'),
});

/**
 * The one tool that leads to a write: it stores a proposal for a person to review, and writes no
 * page. Front ends add it where writing proposals is allowed; `agent` names who proposes (`mcp:claude-code`),
 * or says it when asked, for a front end that learns it later (an MCP client names itself on connecting).
 */
export function proposePageChangeTool(context: ProposalContext, agent: string | (() => string)): WikiTool {
  return defineTool({
    name: 'propose_page_change',
    description:
      "Records project knowledge you learned (how a part of the code works, a convention, a gotcha, a decision and why) as a proposed wiki page, for a person to review. " +
      'Use it when your work taught you something a teammate or a later session would need and the wiki lacks it or has it wrong: search_wiki first, and to correct a page, ' +
      'read_page it and propose its whole new body under its slug. Nothing is written to the wiki until a person accepts the proposal. ' +
      'It is checked like any wiki edit: every code citation must exist now, links must name existing pages; a refusal lists the problems to fix before proposing again.',
    input,
    narrow: 'The proposal may or may not have been stored; a person reviewing proposals will see it if it was.',
    label: (raw) => `Proposed a change to the page ${field(raw, 'slug')}`,
    async run(proposed) {
      const result = await proposePageChange(context, proposed, typeof agent === 'string' ? agent : agent());
      if ('problems' in result) {
        const lines = result.problems.map((problem) => `- ${problem.path}: ${problem.message}`);
        return failure(`The proposal was not stored:\n${lines.join('\n')}\nFix these and propose again.`, `refused: ${plural(result.problems.length, 'problem')}`);
      }
      const { id, page } = result.proposal;
      return success(`Proposal ${id} is stored: a person will review it, and the page "${page.slug}" changes only if they accept it.`, `proposal ${id}`);
    },
  });
}
