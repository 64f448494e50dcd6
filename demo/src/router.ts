import { HttpError } from './errors';
import { Method, type Handler, type HttpRequest, type HttpResponse, type Params } from './types';

interface Route {
  method: Method;
  segments: string[];
  handler: Handler;
}

/** Matches `:name` path segments. */
export const PARAM_PATTERN = /^:([A-Za-z_][A-Za-z0-9_]*)$/;

/** Splits a path into segments, ignoring empty ones, so `/todos/` and `/todos` are the same route. */
export function splitPath(path: string): string[] {
  return path.split('?')[0].split('/').filter((segment) => segment.length > 0);
}

/** Maps method + path patterns to handlers. Routes are tried in the order they were added. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: Method, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: splitPath(pattern), handler });
    return this;
  }

  get(pattern: string, handler: Handler): this {
    return this.add(Method.Get, pattern, handler);
  }

  post(pattern: string, handler: Handler): this {
    return this.add(Method.Post, pattern, handler);
  }

  patch(pattern: string, handler: Handler): this {
    return this.add(Method.Patch, pattern, handler);
  }

  delete(pattern: string, handler: Handler): this {
    return this.add(Method.Delete, pattern, handler);
  }

  /** The router as the pipeline's final handler: 404 for an unknown path, 405 for a known path with another method. */
  readonly handle: Handler = async (request: HttpRequest): Promise<HttpResponse> => {
    const segments = splitPath(request.path);
    let pathMatched = false;
    for (const route of this.routes) {
      const params = this.match(route.segments, segments);
      if (!params) continue;
      pathMatched = true;
      if (route.method !== request.method) continue;
      return route.handler({ ...request, params });
    }
    throw new HttpError(pathMatched ? 405 : 404);
  };

  private match(pattern: string[], segments: string[]): Params | undefined {
    if (pattern.length !== segments.length) return undefined;
    const params: Params = {};
    for (let i = 0; i < pattern.length; i++) {
      const name = PARAM_PATTERN.exec(pattern[i])?.[1];
      if (name) params[name] = decodeURIComponent(segments[i]);
      else if (pattern[i] !== segments[i]) return undefined;
    }
    return params;
  }
}
