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

  /**
   * By shape, not by class: the extension loads some modules as bundles of their own (the store,
   * the model adapters), each with its own copy of this class, and their errors must still count.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    // Subclasses (PlanRejectedError, …) keep the plain class check.
    return this === WikiError && value instanceof Error && value.name === 'WikiError' && typeof (value as { code?: unknown }).code === 'string';
  }

  /** Message and hint as one sentence pair for a notification or a terminal. */
  get userMessage(): string {
    return this.hint ? `${this.message} ${this.hint}` : this.message;
  }
}

export type WikiErrorCode =
  | 'no-wiki'
  | 'invalid-mcp-config'
  | 'invalid-agents-section'
  | 'invalid-slug'
  | 'invalid-page'
  | 'read-only'
  | 'write-failed'
  | 'git-unavailable'
  | 'unknown-revision'
  | 'semantic-too-large'
  | 'hook-not-shell'
  | 'nothing-to-commit'
  | 'conversation-not-found'
  | 'turn-not-found'
  | 'conversation-exists'
  | 'invalid-conversation-id'
  | 'invalid-turns'
  | 'invalid-export'
  | 'newer-database'
  | 'store-busy'
  | 'plan-rejected'
  | 'invalid-generate-file'
  | 'outline-rejected'
  | 'proposal-not-found'
  | 'invalid-proposal'
  | 'proposals-full'
  | 'page-changed'
  | 'cancelled'
  | 'unsafe-file'
  | 'wiki-busy';

/**
 * Whether a file system call failed because nothing is at the path: it is gone, or a folder on the
 * way is a file. Only this means "absent"; any other failure (EACCES, EIO, ELOOP, ...) is itself
 * the answer, to pass on or report.
 */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Whether a read failed because the path is not a file (gone, a folder, or under a file). */
export function isNotAFile(error: unknown): boolean {
  return isMissing(error) || (error as NodeJS.ErrnoException | undefined)?.code === 'EISDIR';
}

/** Why the file-access module refused a file. */
export type FileRefusal =
  /** The path, or a symbolic link on the way to it, leads out of the folder it must stay in. */
  | 'link-outside'
  /** The path itself names a place outside that folder. */
  | 'outside'
  /** A FIFO, a device, a socket: reading one could block or never end. */
  | 'not-regular'
  | 'too-large'
  /** `.git/` internals or a name that usually holds secrets. */
  | 'secret'
  /** A write target that is a symbolic link: writes never go through a link. */
  | 'symlink'
  /** Read, but nested too deeply for the parser's stack (1,000 nested parentheses, 5,000 nested `#if`). */
  | 'too-deep';

/** Whether a parse failed for want of stack: a file nested too deeply, not a bug in the parser. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof Error && /Maximum call stack size exceeded/.test(error.message);
}

/** A read or write the file-access module refused; the message names the file and the reason. */
export class FileAccessError extends WikiError {
  constructor(
    readonly reason: FileRefusal,
    /** The file as the user knows it: workspace-relative when it is inside the workspace. */
    readonly file: string,
    message: string,
    hint?: string,
  ) {
    super('unsafe-file', message, hint);
    this.name = 'FileAccessError';
  }
}

export function isFileAccessError(error: unknown): error is FileAccessError {
  return error instanceof FileAccessError || (error as { name?: string } | undefined)?.name === 'FileAccessError';
}
