/**
 * Checks a value against a schema of the served OpenAPI 3.0 document: the subset zod-to-openapi
 * writes (type, nullable, properties, required, additionalProperties, items, enum, anyOf, oneOf,
 * allOf, $ref, minimum/maximum, minLength/maxLength, pattern, minItems/maxItems). An independent
 * reading of the document, so a test can hold an answer to what a client is told, not to the
 * zod schema that wrote it. Answers the problems, empty when the value fits.
 */
export type Schema = Record<string, any>;

export function validate(document: Schema, schema: Schema, value: unknown, at = '(body)'): string[] {
  if (schema.$ref) return validate(document, resolve(document, schema.$ref), value, at);
  if (value === null) return schema.nullable === true || (schema.type === undefined && !schema.anyOf && !schema.oneOf && !schema.allOf) ? [] : [`${at}: null is not allowed`];
  if (schema.allOf) return schema.allOf.flatMap((part: Schema) => validate(document, part, value, at));
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!schema[key]) continue;
    const fits = schema[key].filter((part: Schema) => validate(document, part, value, at).length === 0).length;
    if (key === 'anyOf' ? fits === 0 : fits !== 1) return [`${at}: fits ${fits} of the ${key} schemas`];
  }
  if (schema.enum && !schema.enum.some((option: unknown) => option === value)) return [`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  const problems: string[] = [];
  switch (schema.type) {
    case undefined:
      break;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
      const record = value as Record<string, unknown>;
      for (const name of schema.required ?? []) if (!(name in record)) problems.push(`${at}.${name}: required`);
      for (const [name, field] of Object.entries(record)) {
        const declared = schema.properties?.[name];
        if (declared) problems.push(...validate(document, declared, field, `${at}.${name}`));
        else if (schema.additionalProperties === false) problems.push(`${at}.${name}: not in the schema`);
        else if (typeof schema.additionalProperties === 'object') problems.push(...validate(document, schema.additionalProperties, field, `${at}.${name}`));
      }
      break;
    }
    case 'array':
      if (!Array.isArray(value)) return [`${at}: not an array`];
      if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${at}: fewer than ${schema.minItems} items`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${at}: more than ${schema.maxItems} items`);
      value.forEach((item, i) => problems.push(...validate(document, schema.items ?? {}, item, `${at}[${i}]`)));
      break;
    case 'string':
      if (typeof value !== 'string') return [`${at}: not a string`];
      if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${at}: shorter than ${schema.minLength}`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${at}: longer than ${schema.maxLength}`);
      if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${at}: does not match ${schema.pattern}`);
      break;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || (schema.type === 'integer' && !Number.isInteger(value))) return [`${at}: not an ${schema.type}`];
      if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) problems.push(`${at}: below ${schema.minimum}`);
      if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) problems.push(`${at}: above ${schema.maximum}`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return [`${at}: not a boolean`];
      break;
    default:
      problems.push(`${at}: unknown type ${schema.type}`);
  }
  return problems;
}

function resolve(document: Schema, ref: string): Schema {
  const found = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  if (!found) throw new Error(`unresolved ${ref}`);
  return found;
}
