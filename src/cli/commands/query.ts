import type { AnswerDependencies, ModelChoice } from '../../core/chat/chatService';
import type { ToolStepEvent } from '../../core/chat/toolLoop';
import { CHAT_DEFAULTS, MODEL_DEFAULTS } from '../../core/defaults';
import type { WikiTool } from '../../core/tools/tool';
import type { Wiki } from '../../core/wiki/wiki';
import type { CliCommand } from '../command';
import { answeredBy } from '../../shared/answeredBy';
import { askInConversation, conversationChoice, conversationJson, conversationLines, CONVERSATION_HELP, CONVERSATION_OPTIONS, openCliConversationStore, type ConversationTurnOptions } from '../conversationTurn';
import { combineQuestion, stdinText } from '../questionInput';
import { missingModels, MODEL_ENVIRONMENT, modelFromEnv, modelNames, type ModelFlags } from '../model';
import { MODEL_OPTIONS } from '../options';
import { pageAges } from '../pageAges';

/** `repo-wiki query QUESTION`: one chat turn, the answer on stdout and the tool steps on stderr. */
export const query: CliCommand = {
  name: 'query',
  summary: 'answer a question from the wiki, as the chat does',
  description: `In one turn, with the chat's retrieval and tools: it asks the model when ${MODEL_ENVIRONMENT} is set, else answers offline from the wiki's pages. Text piped to stdin is added to the question (- reads the question from stdin alone). ${CONVERSATION_HELP}`,
  usage: 'QUESTION | -',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [
    { name: 'offline', description: 'answer from retrieval alone, without a model' },
    ...MODEL_OPTIONS,
    ...CONVERSATION_OPTIONS,
  ],
  async run({ positionals, format, flag, value, values, core, wiki }, io) {
    const conversation = conversationChoice(value('conversation'), flag('new'));
    const stdinOnly = positionals.length === 1 && positionals[0] === '-';
    const question = combineQuestion(positionals, await stdinText(stdinOnly));
    if (!question.trim()) {
      io.err(stdinOnly ? 'Nothing came on stdin: pipe the question in, for example  echo "How are errors handled?" | repo-wiki query -' : 'Ask a question: repo-wiki query "How are errors handled?"');
      return 2;
    }
    const workspace = await core();
    const store = conversation && (await openCliConversationStore(wiki.root, io));
    const stream = format === 'text' ? io.write : undefined;
    const answer = await queryWiki(workspace.wiki, question, {
      offline: flag('offline'),
      models: { model: value('model'), fallbacks: values('fallback') },
      tools: workspace.tools({ ages: (pages) => pageAges(workspace.wiki, pages) }),
      // A refused file (a link out, a FIFO) does not resolve: the answer marks that citation unverified.
      resolves: async (citation) => !!(await workspace.drift.locate(citation).catch(() => undefined)),
      onText: stream,
      // Steps go to stderr as they finish, so stdout holds the answer alone.
      onToolStep: format === 'text' ? (event) => event.step && io.err(`  ${event.step.ok ? '·' : '✗'} ${event.label}: ${event.step.summary}`) : undefined,
      // --new prints the id it made before the answer streams (text mode; JSON has it as "conversation").
      ...(store ? { conversation: { store, ...conversation, onConversation: (started) => format === 'text' && conversation.fresh && io.err(`Started conversation ${started.id}`) } } : {}),
    }).finally(() => store?.close());
    const unverified = answer.context.unverified ?? [];
    if (format === 'json') {
      io.out(JSON.stringify({
        answer: answer.text, offline: answer.context.offline, model: answer.model, attempts: answer.context.attempts ?? [],
        pages: answer.retrieved.map((p) => ({ slug: p.slug, score: p.score })),
        steps: answer.steps.map((step) => ({ tool: step.tool, input: step.input, ok: step.ok })),
        unverified, usage: { inputTokens: answer.inputTokens, outputTokens: answer.outputTokens },
        ...(answer.conversation ? conversationJson(answer.conversation, answer.context) : {}),
      }, null, 2));
    } else {
      if (!stream) io.out(answer.text);
      else io.out('');
      const pages = answer.retrieved.map((p) => `[[${p.slug}]] ${p.score}`).join(', ');
      if (unverified.length) io.out(`\nUnverified citations (not read, and not found in the code): ${unverified.join(', ')}`);
      io.out(`\nPages used: ${pages || 'none'} · ${answer.steps.length ? `${answer.steps.length} tool steps · ` : ''}${answer.context.offline ? 'offline answer' : answeredBy(answer.model, answer.context.attempts)}${answer.context.oneShot ? ' · one shot: the model cannot call tools' : ''}`);
      if (answer.conversation) for (const line of conversationLines(answer.conversation, answer.context)) io.err(line);
    }
    return 0;
  },
};

export interface QueryOptions {
  offline: boolean;
  models: ModelFlags;
  /** The read-only tools the model may call; with none the answer is one shot. */
  tools?: readonly WikiTool[];
  resolves?(citation: { path: string; symbol?: string }): Promise<boolean>;
  /** Streams answer text as it arrives (text format); JSON waits for the whole answer. */
  onText?(delta: string): void;
  onToolStep?(event: ToolStepEvent): void;
  /** Ask in this stored conversation (the chat's prior turns, summaries and totals), and keep the turn. */
  conversation?: ConversationTurnOptions;
}

/** The last line of an offline answer without a key, as a terminal user needs it (the core's names a VS Code command). */
const CLI_NO_KEY_STEP = `For a written answer, name a model with ${MODEL_ENVIRONMENT}, then ask again.`;

/** One question answered with the chat's retrieval, prompt and tool loop, without a conversation. */
export async function queryWiki(wiki: Wiki, question: string, options: QueryOptions) {
  const [{ AnswerEngine }, { offlineAnswer }] = await Promise.all([import('../../core/chat/chatService'), import('../../core/chat/offline')]);
  const extensionNoKeyStep = offlineAnswer([], 'no-key').split('\n').at(-1)!;
  const pages = await wiki.loadPages();
  let noKey = false;
  let noKeyFor = '';
  const chooseModel = async (): Promise<ModelChoice> => {
    const offer = await modelFromEnv(options.models);
    noKey = 'missing' in offer;
    if ('missing' in offer) noKeyFor = missingModels(offer);
    return 'model' in offer ? { model: offer.model } : { offline: 'no-key' };
  };
  // Offline, the answer comes whole (one text event): its next step is told as a terminal needs it.
  const forTerminal = (text: string) => (noKey ? text.replace(extensionNoKeyStep, `${CLI_NO_KEY_STEP} (${noKeyFor})`) : text);
  const deps: AnswerDependencies = {
    pages: async () => pages,
    chooseModel,
    settings: () => ({ ...CHAT_DEFAULTS, model: modelNames(options.models)[0], maxTokens: MODEL_DEFAULTS.maxTokens, maxPriorTurns: 0 }),
    tools: () => options.tools ?? [],
    ...(options.resolves ? { resolves: options.resolves } : {}),
  };
  const events = { onText: (delta: string) => options.onText?.(forTerminal(delta)), onToolStep: options.onToolStep };
  if (options.conversation) {
    const { conversation, answer } = await askInConversation(options.conversation, { ...deps, settings: () => ({ ...deps.settings(), maxPriorTurns: CHAT_DEFAULTS.maxPriorTurns }) }, { question, offline: options.offline }, events);
    return { ...answer, text: forTerminal(answer.text), conversation };
  }
  const answer = await new AnswerEngine(deps).answer({ question, offline: options.offline }, events);
  return { ...answer, text: forTerminal(answer.text), conversation: undefined };
}

