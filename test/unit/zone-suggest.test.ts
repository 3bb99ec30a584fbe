import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suggestZone } from '../../renderer/src/console/zone-suggest';

const NOW = new Date('2026-12-01T12:00:00Z');

describe('suggestZone: an accepted zone for one outside the list', () => {
  for (const [typed, expected] of [
    ['Europe/Berlin', { kind: 'same-clock', zone: 'Europe/Amsterdam' }],
    ['Europe/Paris', { kind: 'same-clock', zone: 'Europe/Amsterdam' }],
    ['Europe/Lisbon', { kind: 'same-clock', zone: 'Europe/London' }],
    ['Asia/Shanghai', { kind: 'same-clock', zone: 'Asia/Singapore' }],
    ['America/New_York', { kind: 'same-clock', zone: 'US/Eastern' }],
    // Santiago changes its clocks on its own dates: only today's offset matches.
    ['America/Santiago', { kind: 'same-offset-now', zone: 'America/Argentina/Buenos_Aires' }],
  ] as const) {
    it(`${typed} -> ${expected.zone} (${expected.kind})`, () => assert.deepEqual(suggestZone(typed, NOW), expected));
  }

  it('says nothing for an accepted zone, a blank, or what is no zone at all', () => {
    assert.equal(suggestZone('Europe/Amsterdam', NOW), undefined);
    assert.equal(suggestZone('', NOW), undefined);
    assert.equal(suggestZone('Mars/Olympus', NOW), undefined);
  });
});
