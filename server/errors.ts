import { MSG } from './schemas/messages';

/** An error with a fixed HTTP status and the exact body the client receives. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
  }
}

export type FieldErrors = Record<string, string[]>;

/** 400 with `{field: ["message"]}` (or any other body of the spec's 400 shapes). */
export class ValidationError extends HttpError {
  constructor(body: FieldErrors | Record<string, unknown>) {
    super(400, body);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** 404; `key` is `detail` or `details` as the spec writes it for that resource. */
export class NotFoundError extends HttpError {
  constructor(message: string = MSG.notFound, key: 'detail' | 'details' = 'detail') {
    super(404, { [key]: message });
  }
}

export class ConflictError extends HttpError {
  constructor(body: Record<string, unknown>) {
    super(409, body);
  }
}

export class UnauthorizedError extends HttpError {
  constructor() {
    super(401, { detail: MSG.sessionExpired });
  }
}
