import type { z } from 'zod';
import type { FieldErrors } from '../../core/errors';

/**
 * A schema's failure as the spec's field errors, keyed by the top-level field: what a request
 * body and a CSV row both answer, so services need nothing of server/http/.
 */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? String(issue.path[0]) : 'non_field_errors';
    (errors[key] ??= []).includes(issue.message) || errors[key].push(issue.message);
  }
  return errors;
}
