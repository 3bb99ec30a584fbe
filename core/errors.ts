import { MSG } from './messages';

export type FieldErrors = Record<string, string[]>;

/**
 * What went wrong in the domain's terms, with the exact body the spec gives the client. The
 * server's one error handler chooses the HTTP status from the class; nothing here knows HTTP.
 */
export abstract class DomainError extends Error {
  constructor(readonly body: Record<string, unknown>) {
    const detail = body.detail ?? body.details;
    super(typeof detail === 'string' ? detail : new.target.name);
  }
}

/** Input the rules refuse: `{field: ["message"]}` or another of the spec's 400 shapes. */
export class ValidationError extends DomainError {
  constructor(body: FieldErrors | Record<string, unknown>) {
    super(body);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** Absent, or out of the caller's scope (the two answer alike); `key` as the spec writes it for that resource. */
export class NotFoundError extends DomainError {
  constructor(message: string = MSG.notFound, key: 'detail' | 'details' = 'detail') {
    super({ [key]: message });
  }
}

/** The record's current state does not allow the change. */
export class ConflictError extends DomainError {}
