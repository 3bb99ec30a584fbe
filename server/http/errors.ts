import { MSG } from '../../core/messages';

export { ConflictError, NotFoundError, ValidationError, type FieldErrors } from '../../core/errors';

/** An error of the HTTP layer itself (no token, body too large, ...) with its fixed status and exact body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
  }
}

export class UnauthorizedError extends HttpError {
  constructor() {
    super(401, { detail: MSG.sessionExpired });
  }
}

/** The caller may see the thing but not do this to it (scope is checked first: out of scope is 404). */
export class ForbiddenError extends HttpError {
  constructor(detail: string) {
    super(403, { detail });
  }
}
