/** An error a user can act on: `message` says what happened, `hint` says what to do next. */
export class WikiError extends Error {
  constructor(
    readonly code: WikiErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'WikiError';
  }

  /** Message and hint as one sentence pair for a notification or a terminal. */
  get userMessage(): string {
    return this.hint ? `${this.message} ${this.hint}` : this.message;
  }
}

export type WikiErrorCode =
  | 'no-wiki'
  | 'invalid-slug'
  | 'invalid-page'
  | 'read-only'
  | 'write-failed'
  | 'git-unavailable'
  | 'hook-not-shell'
  | 'nothing-to-commit'
  | 'conversation-not-found'
  | 'newer-database'
  | 'store-busy'
  | 'plan-rejected'
  | 'page-changed'
  | 'cancelled';

/** Whether a read failed because the path is not a file (gone, a folder, or under a file). */
export function isNotAFile(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
