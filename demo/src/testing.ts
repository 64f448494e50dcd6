import type { Pipeline } from './pipeline';
import { Method, type HeaderMap, type HttpRequest, type HttpResponse } from './types';

/** A complete request with sensible defaults, for tests. JSON bodies get a content-type. */
export function makeRequest(method: Method, path: string, body?: unknown, headers: HeaderMap = {}): HttpRequest {
  return {
    method,
    path,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body,
    params: {},
    receivedAt: Date.now(),
  };
}

/** Runs one request through an app, in process: no sockets, no ports. */
export function call(app: Pipeline, method: Method, path: string, body?: unknown): Promise<HttpResponse> {
  return app.run(makeRequest(method, path, body));
}
