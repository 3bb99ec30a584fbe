import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spanErrors, type Span, type SpanKind } from '../../core/spans';
import { MSG } from '../../core/messages';

/** A start no later than its end (core/spans.ts): events, tracks, sessions, promotion codes, on create, update and in event files. */
describe('spanErrors', () => {
  const A = '2026-12-01T10:00:00';
  const B = '2026-12-01T12:00:00';
  const stored: Span = { starts: A, ends: B };
  const table: [string, SpanKind, Partial<Span>, Span | undefined, Record<string, string[]>][] = [
    ['an event in order', 'event', { starts: A, ends: B }, undefined, {}],
    ['an event of no length', 'event', { starts: A, ends: A }, undefined, {}],
    ['an event ending before it starts', 'event', { starts: B, ends: A }, undefined, { ends: [MSG.eventEndsBeforeStart] }],
    ['a track out of order names its start', 'track', { starts: B, ends: A }, undefined, { starts: [MSG.trackDatesOrder] }],
    ['a session out of order', 'session', { starts: B, ends: A }, undefined, { starts: [MSG.sessionDatesOrder] }],
    ['a promotion code out of order', 'promotionCode', { starts: B, ends: A }, undefined, { ends: [MSG.promotionCodeEndsBeforeStart] }],
    ['a promotion code without an end', 'promotionCode', { starts: B, ends: null }, undefined, {}],
    ['an update of the end alone, before the stored start', 'event', { ends: '2026-12-01T09:00:00' }, stored, { ends: [MSG.eventEndsBeforeStart] }],
    ['an update of the start alone, after the stored end', 'session', { starts: '2026-12-01T13:00:00' }, stored, { starts: [MSG.sessionDatesOrder] }],
    ['an update of the start alone, still in order', 'track', { starts: '2026-12-01T11:00:00' }, stored, {}],
    ['an update of neither', 'event', {}, stored, {}],
  ];
  for (const [name, kind, change, before, expected] of table) it(name, () => assert.deepEqual(spanErrors(kind, change, before), expected));
});
