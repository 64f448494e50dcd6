import type { HttpResponse } from './types';

export const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** An error that knows which HTTP response it should become. Throw it from handlers and middleware. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string = STATUS_TEXT[status] ?? 'Error',
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  toResponse(): HttpResponse {
    return {
      status: this.status,
      headers: { 'content-type': 'application/json' },
      body: { error: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}

export function isHttpError(value: unknown): value is HttpError {
  return value instanceof HttpError;
}

/** Anything thrown that is not an HttpError becomes a 500 without leaking its message. */
export function toErrorResponse(error: unknown): HttpResponse {
  if (isHttpError(error)) return error.toResponse();
  return new HttpError(500).toResponse();
}
