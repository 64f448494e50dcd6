import { HttpError } from './errors';
import { logger, normalizeHeaders, requestTimeout, requireJson } from './middleware';
import { Pipeline } from './pipeline';
import { Router } from './router';
import type { Handler, HttpResponse } from './types';

export interface Todo {
  id: number;
  title: string;
  done: boolean;
  createdAt: number;
}

export const MAX_TITLE_LENGTH = 200;

/** In-memory todo storage. Ids are never reused, even after a delete. */
export class TodoStore {
  private readonly todos = new Map<number, Todo>();
  private nextId = 1;

  constructor(private readonly now: () => number = Date.now) {}

  list(): Todo[] {
    return [...this.todos.values()];
  }

  add(title: string): Todo {
    const trimmed = title.trim();
    if (!trimmed || trimmed.length > MAX_TITLE_LENGTH) {
      throw new HttpError(400, `Title must be 1-${MAX_TITLE_LENGTH} characters`);
    }
    const todo: Todo = { id: this.nextId++, title: trimmed, done: false, createdAt: this.now() };
    this.todos.set(todo.id, todo);
    return todo;
  }

  complete(id: number, done = true): Todo {
    const todo = this.find(id);
    todo.done = done;
    return todo;
  }

  remove(id: number): void {
    this.find(id);
    this.todos.delete(id);
  }

  private find(id: number): Todo {
    const todo = this.todos.get(id);
    if (!todo) throw new HttpError(404, `No todo ${id}`);
    return todo;
  }
}

function json(status: number, body?: unknown): HttpResponse {
  return { status, headers: { 'content-type': 'application/json' }, body };
}

function idParam(value: string | undefined): number {
  const id = Number(value);
  if (!Number.isInteger(id) || id < 1) throw new HttpError(400, 'Id must be a positive integer');
  return id;
}

/** The todo routes, mounted on a fresh Router. */
export function todoRoutes(store: TodoStore): Router {
  const create: Handler = async (request) => {
    const title = (request.body as { title?: unknown } | undefined)?.title;
    if (typeof title !== 'string') throw new HttpError(400, 'Body must be {"title": string}');
    return json(201, store.add(title));
  };
  return new Router()
    .get('/todos', async () => json(200, store.list()))
    .post('/todos', create)
    .patch('/todos/:id/done', async (request) => json(200, store.complete(idParam(request.params.id))))
    .delete('/todos/:id', async (request) => {
      store.remove(idParam(request.params.id));
      return json(204);
    });
}

export interface AppOptions {
  store?: TodoStore;
  timeoutMs?: number;
  log?: boolean;
}

/** The whole app: middleware in order, then the todo router. */
export function createApp(options: AppOptions = {}): Pipeline {
  const router = todoRoutes(options.store ?? new TodoStore());
  const app = new Pipeline(router.handle).use(normalizeHeaders);
  if (options.log ?? true) app.use(logger());
  return app.use(requestTimeout(options.timeoutMs ?? 5_000)).use(requireJson);
}
