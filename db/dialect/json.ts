import type { Knex } from 'knex';
import { dialectOf } from './index';

/**
 * JSON built by the database itself, so a row crosses the driver as one string instead of
 * a few dozen columns turned into a JavaScript object and back into text. Each function
 * answers an SQL expression for the connection's dialect; the caller's column names are
 * trusted identifiers (never client input).
 */

/**
 * A JSON object of `key, expression` pairs, as a JSON value another object can hold. PostgreSQL
 * builds it with row_to_json over a one-row select: json_build_object looks up every
 * argument's type on every row, which made it about 1.6 times as slow for a page of guests
 * (bench/central.ts, full sync), and writes ` : ` between key and value where SQLite's
 * json_object and JSON.stringify write `:`.
 */
export function jsonObject(db: Knex | Knex.Transaction, pairs: [string, string][]): string {
  if (dialectOf(db).name === 'sqlite') return `json_object(${pairs.map(([key, expr]) => `'${key}', ${expr}`).join(', ')})`;
  return `(select row_to_json(r) from (select ${pairs.map(([key, expr]) => `${expr} as "${key}"`).join(', ')}) as r)`;
}

/** The same object as compact JSON text, the same bytes from either database. */
export function jsonObjectText(db: Knex | Knex.Transaction, pairs: [string, string][]): string {
  return dialectOf(db).name === 'sqlite' ? jsonObject(db, pairs) : `${jsonObject(db, pairs)}::text`;
}

/** A JSON true/false from an SQL condition (SQLite parses each constant json() once a statement, not once a row). */
export function jsonBool(db: Knex | Knex.Transaction, condition: string): string {
  return dialectOf(db).name === 'sqlite' ? `case when ${condition} then json('true') else json('false') end` : `(${condition})`;
}

/** A boolean column as JSON true/false (SQLite keeps 0/1, PostgreSQL a boolean). */
export function jsonBoolColumn(db: Knex | Knex.Transaction, column: string): string {
  return dialectOf(db).name === 'sqlite' ? jsonBool(db, `${column} in (1, '1')`) : `(${column} is true)`;
}

/**
 * A stored instant as a JSON value in the API's Datetime form `YYYY-MM-DDThh:mm:ss`
 * (core/time.ts toApiDatetime), null stays null. PostgreSQL writes a timestamp without
 * time zone in exactly that form inside JSON, at about half to_char's cost.
 */
export function apiDatetime(db: Knex | Knex.Transaction, column: string): string {
  return dialectOf(db).name === 'sqlite'
    ? `replace(substr(${column}, 1, 19), ' ', 'T')`
    : `date_trunc('second', ${column} at time zone 'UTC')`;
}

/**
 * Text expressions of an aggregate's rows joined by commas; NULL over no rows. SQLite (3.44 on)
 * and PostgreSQL both spell it string_agg. With `orderBy` in that order. Without, in the order
 * the rows arrive: both keep an ordered subquery's order when the query around it only
 * aggregates (no join, no grouping), and so spare a sort of the texts themselves.
 */
export function joinedText(expression: string, orderBy?: string): string {
  return `string_agg(${expression}, ','${orderBy ? ` order by ${orderBy}` : ''})`;
}

/** Compact JSON text of an array of the rows' JSON texts, in `orderBy`'s order; NULL over no rows. */
export function jsonArrayText(elementText: string, orderBy: string): string {
  return `'[' || ${joinedText(elementText, orderBy)} || ']'`;
}

/** JSON text as a JSON value, so an enclosing object holds it as JSON rather than as a string. */
export function jsonFromText(db: Knex | Knex.Transaction, text: string): string {
  return dialectOf(db).name === 'sqlite' ? `json(${text})` : `(${text})::json`;
}

/**
 * Text the driver hands over as bytes where that is cheaper: node-sqlite3 gives a blob as a
 * Buffer, sparing a large text its decoding into a JavaScript string and its encoding back
 * into a response. node-postgres answers text either way.
 */
export function textAsBytes(db: Knex | Knex.Transaction, text: string): string {
  return dialectOf(db).name === 'sqlite' ? `cast(${text} as blob)` : text;
}

/** A textAsBytes column as it came back, as bytes (node-postgres's text made a Buffer). */
export function bytesOf(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value) : value;
}

/**
 * JSON text of an array with an array per row, of these columns' values in order (text stays a
 * JSON string, even JSON text); `[]` over no rows. For reads folded into one statement, each a
 * column of one row.
 */
export function jsonRowsText(db: Knex | Knex.Transaction, columns: string[]): string {
  const values = columns.join(', ');
  return dialectOf(db).name === 'sqlite' ? `coalesce(json_group_array(json_array(${values})), '[]')` : `coalesce(json_agg(json_build_array(${values}))::text, '[]')`;
}
