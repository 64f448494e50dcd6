import { toErrorResponse } from './errors';
import type { Handler, HttpRequest, HttpResponse, Middleware } from './types';

/**
 * Folds middleware around a final handler. The first middleware in the list is the outermost:
 * it sees the request first and the response last.
 */
export function compose(middleware: readonly Middleware[], handler: Handler): Handler {
  return middleware.reduceRight<Handler>(
    (next, current) => (request) => current(request, next),
    handler,
  );
}

/** An ordered list of middleware in front of one handler (usually a Router). */
export class Pipeline {
  private readonly middleware: Middleware[] = [];
  private composed?: Handler;

  constructor(private readonly handler: Handler) {}

  /** Appends a middleware; it runs after (inside) every middleware added before it. */
  use(middleware: Middleware): this {
    this.middleware.push(middleware);
    this.composed = undefined;
    return this;
  }

  /** Runs one request through the middleware and the handler. Never rejects. */
  async run(request: HttpRequest): Promise<HttpResponse> {
    this.composed ??= compose(this.middleware, this.handler);
    try {
      return await this.composed(request);
    } catch (error) {
      return toErrorResponse(error);
    }
  }
}
