import * as vscode from 'vscode';
import type { WikiTool } from '../../core/tools';
import type { Services } from '../services/services';

/**
 * The wiki's tools as VS Code language model tools (declared in package.json under
 * `languageModelTools`), so agent mode and other extensions' chats can search and read the wiki
 * and the code. Each call runs on the wiki of the active editor's folder, else the first wiki.
 */
export class WikiLanguageModelTool implements vscode.LanguageModelTool<unknown> {
  constructor(private readonly services: Services, private readonly name: string) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): Promise<vscode.PreparedToolInvocation> {
    const tool = await this.tool();
    return { invocationMessage: tool ? tool.label(options.input) : `Repo Wiki: ${this.name}` };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const tool = await this.tool();
    if (!tool) return textResult('Error: this workspace has no Repo Wiki yet (no .wiki/ folder). Run "Repo Wiki: Initialise wiki in this workspace" first.');
    return (await runCancellable(tool, options.input, token)).result;
  }

  private async tool(): Promise<WikiTool | undefined> {
    const wiki = await this.services.wikis.preferred();
    return wiki && this.services.cores.of(wiki).tools().find((tool) => tool.name === this.name);
  }
}

/** Runs a wiki tool for VS Code, cancelled with `token`; its result as a language model tool result. */
export async function runCancellable(tool: WikiTool, input: unknown, token: vscode.CancellationToken): Promise<{ ok: boolean; result: vscode.LanguageModelToolResult }> {
  const controller = new AbortController();
  const cancelled = token.onCancellationRequested(() => controller.abort());
  try {
    const { ok, text } = await tool.run(input, controller.signal);
    // No error flag in VS Code's tool results: the text says it, as it does for every other surface.
    return { ok, result: textResult(ok ? text : `Error: ${text}`) };
  } finally {
    cancelled.dispose();
  }
}

export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/**
 * Registers every read-only tool package.json declares, so the declaration and the registration
 * cannot part ways. (propose_page_change is registered by the proposals feature.)
 */
export function registerLanguageModelTools(context: vscode.ExtensionContext, services: Services): void {
  const declared = (context.extension.packageJSON as { contributes?: { languageModelTools?: { name: string; tags?: string[] }[] } }).contributes?.languageModelTools ?? [];
  for (const { name, tags } of declared) {
    if (tags?.includes('read-only')) context.subscriptions.push(vscode.lm.registerTool(name, new WikiLanguageModelTool(services, name)));
  }
}
