import { HttpError } from './errors';
import { Method, type HeaderMap, type Middleware } from './types';

/** Header helpers. Header names are case-insensitive in HTTP; we store them lower-cased. */
export namespace Header {
  export const CONTENT_TYPE = 'content-type';
  export const REQUEST_ID = 'x-request-id';

  /** A copy of `headers` with every name lower-cased. Later duplicates win. */
  export function normalize(headers: HeaderMap): HeaderMap {
    const out: HeaderMap = {};
    for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
    return out;
  }

  /** Case-insensitive lookup. */
  export function get(headers: HeaderMap, name: string): string | undefined {
    return headers[name.toLowerCase()];
  }
}

/** Lower-cases request and response header names. Install it first. */
export const normalizeHeaders: Middleware = async (request, next) => {
  const response = await next({ ...request, headers: Header.normalize(request.headers) });
  return { ...response, headers: Header.normalize(response.headers) };
};

export interface LogSink {
  info(message: string): void;
}

/** Logs one line per request: method, path, status and duration. */
export function logger(sink: LogSink = console): Middleware {
  return async (request, next) => {
    const response = await next(request);
    const ms = Date.now() - request.receivedAt;
    sink.info(`${request.method} ${request.path} ${response.status} ${ms}ms`);
    return response;
  };
}

/** Rejects request bodies that are not JSON. Only checks methods that carry a body. */
export const requireJson: Middleware = async (request, next) => {
  if (request.method === Method.Post || request.method === Method.Patch) {
    const type = Header.get(request.headers, Header.CONTENT_TYPE) ?? '';
    if (!type.startsWith('application/json')) throw new HttpError(415);
  }
  return next(request);
};

/**
 * Answers 503 when the rest of the pipeline takes longer than `ms`. The handler is not stopped;
 * it is told through `request.signal` and should check it before writing.
 */
export function requestTimeout(ms: number): Middleware {
  return async (request, next) => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new HttpError(503, `Timed out after ${ms} ms`));
      }, ms);
    });
    try {
      return await Promise.race([next({ ...request, signal: controller.signal }), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
