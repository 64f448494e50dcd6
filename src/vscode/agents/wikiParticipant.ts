import * as path from 'node:path';
import * as vscode from 'vscode';
import { AnswerEngine, type ModelChoice } from '../../core/chat/chatService';
import type { ConversationRecord, Turn } from '../../core/chat/conversation';
import { fileBackRecord } from '../../core/chat/fileBack';
import { parseCitationText } from '../../core/drift/citations';
import { isLlmError } from '../../core/llm/languageModel';
import type { Wiki } from '../../core/wiki/wiki';
import { VsCodeLanguageModel } from '../models/vscodeLanguageModel';
import { locateCitation } from '../drift/locateCitation';
import type { Services } from '../services/services';

export const PARTICIPANT_ID = 'repo-wiki.wiki';

/**
 * `@wiki` in VS Code's Chat view: the same retrieval and tool loop as the Repo Wiki chat, on the
 * model the user picked there (`request.model`). Pages and the code the model read come back as
 * references; `/save` files the exchange as a page, `/drift` reports the wiki's drift.
 */
export class WikiParticipant {
  constructor(private readonly services: Services) {}

  async handle(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const wiki = await this.services.wikis.preferred();
    if (!wiki) {
      stream.markdown('This workspace has no Repo Wiki yet.');
      stream.button({ command: 'repoWiki.init', title: 'Initialise wiki' });
      return {};
    }
    if (request.command === 'drift') return this.drift(wiki, stream);
    if (request.command === 'save') return this.save(wiki, context, stream);
    return this.answer(wiki, request, context, stream, token);
  }

  private async answer(wiki: Wiki, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const model = new VsCodeLanguageModel(request.model);
    const { services } = this;
    const engine = new AnswerEngine({
      pages: async () => (await services.snapshots.get(wiki)).pages,
      ages: (pages) => services.ages.tags(wiki, pages),
      // In Restricted Mode nothing goes to a model: the answer comes from retrieval alone.
      chooseModel: async (): Promise<ModelChoice> => (vscode.workspace.isTrusted ? { model } : { offline: 'untrusted' }),
      settings: () => services.models.chatSettings(),
      tools: () => services.cores.of(wiki).tools(),
      resolves: async (citation) => !!(await locateCitation(this.services, wiki, citation)),
    });
    const abort = new AbortController();
    const cancelled = token.onCancellationRequested(() => abort.abort());
    try {
      const answer = await engine.answer(
        { question: request.prompt, priorTurns: priorTurns(context) },
        { onText: (delta) => stream.markdown(delta), onToolStep: (event) => event.step || stream.progress(event.label) },
        abort.signal,
      );
      for (const page of answer.context.pages) stream.reference(vscode.Uri.file(wiki.pagePath(page.slug)));
      for (const citation of answer.read) {
        const parsed = parseCitationText(citation.replace(/#L.*$/, ''));
        const found = parsed && (await locateCitation(this.services, wiki, parsed));
        if (found) stream.reference(new vscode.Location(vscode.Uri.file(path.join(wiki.root, found.path)), new vscode.Position(found.line, 0)));
      }
      if (answer.context.unverified?.length) stream.markdown(`\n\n_Unverified citations (not read, and not found in the code): ${answer.context.unverified.join(', ')}_`);
      this.services.output.info(`@wiki answered with ${answer.model} (${answer.steps.length} tool steps, ${answer.inputTokens} input tokens).`);
      return { metadata: { model: answer.model, steps: answer.steps.map((step) => step.label) } };
    } catch (error) {
      const message = isLlmError(error) ? error.message : `Something went wrong: ${(error as Error).message}`;
      this.services.output.warn(`@wiki failed: ${message}`);
      return { errorDetails: { message } };
    } finally {
      cancelled.dispose();
    }
  }

  /** `/save`: this conversation with @wiki, filed back as one page of the wiki. */
  private async save(wiki: Wiki, context: vscode.ChatContext, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    if (!vscode.workspace.isTrusted) return { errorDetails: { message: 'Saving to the wiki writes files, which Restricted Mode does not allow. Trust the workspace first.' } };
    const turns = priorTurns(context);
    if (!turns.length) {
      stream.markdown('Nothing to save yet: ask `@wiki` a question first, then `/save` files the exchange as a wiki page.');
      return {};
    }
    const now = new Date().toISOString();
    const record: ConversationRecord = {
      conversation: { id: `vscode-chat-${Date.now().toString(36)}`, title: turns[0].question.slice(0, 80), created: now, updated: now, turnCount: turns.length, inputTokens: 0, outputTokens: 0, tags: [] },
      turns: turns.map((turn, index): Turn => ({
        conversationId: '', index, question: turn.question, answer: turn.answer, context: { pages: [], offline: false }, model: 'VS Code chat', inputTokens: 0, outputTokens: 0, created: now,
      })),
    };
    try {
      const filed = await fileBackRecord(wiki, record, now.slice(0, 10));
      this.services.wikis.notifyChanged(wiki);
      stream.markdown(`Saved to the wiki as [[${filed.slug}]].`);
      stream.reference(vscode.Uri.file(path.join(wiki.root, filed.path)));
      return { metadata: { filed: filed.slug } };
    } catch (error) {
      return { errorDetails: { message: `The exchange was not saved: ${(error as Error).message}` } };
    }
  }

  /** `/drift`: the citations of the whole wiki checked against the code, errors first. */
  private async drift(wiki: Wiki, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
    stream.progress('Checking every code citation of the wiki…');
    const report = await this.services.cores.of(wiki).drift.check();
    const order = { error: 0, warning: 1, info: 2 } as Record<string, number>;
    const issues = [...report.issues].sort((a, b) => (order[a.severity] ?? 3) - (order[b.severity] ?? 3));
    const errors = issues.filter((issue) => issue.severity === 'error').length;
    stream.markdown(`${report.citationsChecked} citations in ${report.pagesChecked} pages: ${errors} error${errors === 1 ? '' : 's'}, ${issues.length - errors} other issue${issues.length - errors === 1 ? '' : 's'}.\n\n`);
    for (const issue of issues.slice(0, 20)) {
      stream.markdown(`- **${issue.severity}** \`${issue.code}\` `);
      stream.anchor(new vscode.Location(vscode.Uri.file(path.join(wiki.root, issue.page)), new vscode.Position(issue.range.start.line, issue.range.start.character)), issue.page);
      stream.markdown(`: ${issue.message.replace(/\s+/g, ' ')}\n`);
    }
    if (issues.length > 20) stream.markdown(`\n…and ${issues.length - 20} more: run "Repo Wiki: Check drift in the whole wiki" to see them all in the Problems panel.`);
    return { metadata: { issues: issues.length, errors } };
  }

}

/** The earlier exchanges with @wiki in this chat, as question and answer text. */
function priorTurns(context: vscode.ChatContext): { question: string; answer: string }[] {
  const turns: { question: string; answer: string }[] = [];
  let question: string | undefined;
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) question = turn.command ? undefined : turn.prompt;
    else if (turn instanceof vscode.ChatResponseTurn && question !== undefined) {
      const answer = turn.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
      if (answer.trim()) turns.push({ question, answer });
      question = undefined;
    }
  }
  return turns;
}
