/** HTTP methods the router understands. */
export enum Method {
  Get = 'GET',
  Post = 'POST',
  Patch = 'PATCH',
  Delete = 'DELETE',
}

/** Header names are stored lower-cased; see `Header.normalize` in middleware.ts. */
export type HeaderMap = Record<string, string>;

/** Path parameters captured by the router, e.g. `{ id: "42" }` for `/todos/:id`. */
export type Params = Record<string, string>;

export interface HttpRequest {
  method: Method;
  path: string;
  headers: HeaderMap;
  body?: unknown;
  params: Params;
  /** Milliseconds since the epoch when the request entered the pipeline. */
  receivedAt: number;
  /** Aborted when a middleware gives up on the request (e.g. a timeout). */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: HeaderMap;
  body?: unknown;
}

/** Produces the response for a request. The router is the pipeline's final handler. */
export type Handler = (request: HttpRequest) => Promise<HttpResponse>;

/** Calls the rest of the pipeline. */
export type Next = (request: HttpRequest) => Promise<HttpResponse>;

/** Runs around the rest of the pipeline: may change the request, the response, or short-circuit. */
export type Middleware = (request: HttpRequest, next: Next) => Promise<HttpResponse>;
