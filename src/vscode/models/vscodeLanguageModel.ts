import * as vscode from 'vscode';
import { estimateTokens } from '../../core/chat/prompt';
import { MODEL_DEFAULTS } from '../../core/defaults';
import { defaultTraits } from '../../core/llm/fallbackChain';
import { LlmError, messageText, type ChatMessage, type Completion, type CompletionRequest, type LanguageModel, type ModelTraits, type StreamCallbacks, type ToolCall } from '../../core/llm/languageModel';

/**
 * The language-model port over a model VS Code offers (`vscode.lm`, e.g. Copilot's), with tool
 * calling. VS Code has no system role, so the system prompt opens the first user message; it
 * reports no token usage, so counts are estimated from the text.
 */
export class VsCodeLanguageModel implements LanguageModel {
  constructor(private readonly chat: vscode.LanguageModelChat) {}

  /** How the footer and the log name it: "GPT-4o (copilot)". */
  get name(): string {
    return `${this.chat.name} (${this.chat.vendor})`;
  }

  /** VS Code tells the window (`maxInputTokens`); its token count is asynchronous, so budgets estimate from characters. */
  async describe(): Promise<ModelTraits> {
    return defaultTraits(this.name, this.chat.maxInputTokens || MODEL_DEFAULTS.contextWindowTokens);
  }

  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    const cancel = new vscode.CancellationTokenSource();
    const abort = () => cancel.cancel();
    signal?.addEventListener('abort', abort, { once: true });
    const messages = toVsCodeMessages(request);
    let text = '';
    const toolCalls: ToolCall[] = [];
    try {
      const tools = request.toolChoice === 'none' ? undefined : request.tools?.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
      const response = await this.chat.sendRequest(messages, {
        justification: 'Repo Wiki answers from your repository\'s wiki and code.',
        ...(tools?.length ? { tools, toolMode: vscode.LanguageModelChatToolMode.Auto } : {}),
      }, cancel.token);
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          callbacks.onText(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          callbacks.onToolCall?.({ id: part.callId, name: part.name });
          toolCalls.push({ id: part.callId, name: part.name, input: part.input });
        }
      }
    } catch (error) {
      throw this.failure(error, signal, text);
    } finally {
      signal?.removeEventListener('abort', abort);
      cancel.dispose();
    }
    if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.', undefined, text || undefined);
    const sent = messages.reduce((sum, message) => sum + message.content.reduce((n, part) => n + (part instanceof vscode.LanguageModelTextPart ? part.value.length : 0), 0), 0);
    return {
      text, toolCalls, model: this.name, inputTokens: Math.ceil(sent / 4), outputTokens: estimateTokens(text),
      stopReason: toolCalls.length ? 'tool_use' : 'end_turn',
    };
  }

  private failure(error: unknown, signal: AbortSignal | undefined, partial: string): LlmError {
    const partialText = partial || undefined;
    if (signal?.aborted || error instanceof vscode.CancellationError) return new LlmError('cancelled', 'Stopped.', undefined, partialText);
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof vscode.LanguageModelError && error.code === 'NoPermissions') {
      return new LlmError('auth', `Repo Wiki may not use ${this.name} yet: allow it when VS Code asks, or set repoWiki.llm.provider to "anthropic". (${message})`, undefined, partialText);
    }
    if (error instanceof vscode.LanguageModelError && error.code === 'NotFound') {
      return new LlmError('other', `${this.name} is no longer available. Pick another model, or set repoWiki.llm.provider to "anthropic". (${message})`, undefined, partialText);
    }
    return new LlmError('other', `${this.name} failed: ${message}`, undefined, partialText);
  }
}

/** Our messages as VS Code's: the system prompt first, tool calls and results as their parts. */
function toVsCodeMessages(request: CompletionRequest): vscode.LanguageModelChatMessage[] {
  const system = request.system.map((block) => block.text).join('\n\n');
  const messages = [vscode.LanguageModelChatMessage.User(system), vscode.LanguageModelChatMessage.Assistant('Understood.')];
  for (const message of request.messages) messages.push(toVsCodeMessage(message));
  return messages;
}

function toVsCodeMessage(message: ChatMessage): vscode.LanguageModelChatMessage {
  if (typeof message.content === 'string') {
    return message.role === 'user' ? vscode.LanguageModelChatMessage.User(message.content) : vscode.LanguageModelChatMessage.Assistant(message.content);
  }
  if (message.role === 'assistant') {
    const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
    for (const block of message.content) {
      if (block.type === 'text') parts.push(new vscode.LanguageModelTextPart(block.text));
      else if (block.type === 'tool_use') parts.push(new vscode.LanguageModelToolCallPart(block.id, block.name, (block.input ?? {}) as object));
    }
    return vscode.LanguageModelChatMessage.Assistant(parts);
  }
  return vscode.LanguageModelChatMessage.User(message.content.map((block) => {
    if (block.type === 'tool_result') {
      // No error flag in VS Code's parts: the text says it.
      return new vscode.LanguageModelToolResultPart(block.toolUseId, [new vscode.LanguageModelTextPart(block.isError ? `Error: ${block.content}` : block.content)]);
    }
    return new vscode.LanguageModelTextPart(block.type === 'text' ? block.text : messageText({ role: 'user', content: [block] }));
  }));
}
