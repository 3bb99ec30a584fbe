import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Api } from '../../renderer/src/api';
import { GuestCopy } from '../../renderer/src/guest-copy';

const guest = (id: number, fields: Record<string, unknown> = {}) => ({
  id,
  first_name: `First${id}`,
  last_name: `Last${id}`,
  email: `g${id}@example.test`,
  company: 'Acme',
  registration_type: 1,
  barcode: `CODE-${id}`,
  nfc_tag: null,
  objstatus: '1',
  checked_in_at: null,
  ...fields,
});

/** The two list endpoints the copy reads, answering one page; records what it asked. */
function fakeApi(guests: unknown[], checkins: unknown[], startTime: string) {
  const asked: string[] = [];
  const api = {
    get: async (path: string) => {
      asked.push(path);
      if (path.includes('/guests?')) return { results: guests, next: null, start_time: startTime };
      return { results: checkins, next: null };
    },
  } as unknown as Api;
  return { api, asked };
}

describe('the station\'s copy of the guest list', () => {
  it('loads whole, then asks only for what changed since the last start_time, and decides as the event\'s door does', async () => {
    const copy = await GuestCopy.open(1);
    assert.equal(copy.loaded, false);
    const first = fakeApi(
      [guest(1), guest(2, { checked_in_at: '2026-12-01T18:00:00' }), guest(3, { objstatus: '2' }), guest(4, { nfc_tag: '04AB' })],
      [{ guest_id: 2, direction: 'in', station: 'Side door', scanned_at: '2026-12-01T18:00:00', undone_at: null }],
      '2026-12-01T18:05:00',
    );
    await copy.refresh(first.api);
    assert.equal(first.asked[0], '/events/1/guests?page=1&page_size=1000');
    assert.equal(copy.size, 4);

    assert.equal(copy.decide(copy.find('barcode', 'CODE-1', true), 'in'), 'checked_in');
    assert.equal(copy.decide(copy.find('barcode', 'code-1', true), 'in'), 'checked_in', 'Caps Lock swaps the case');
    assert.equal(copy.find('barcode', 'CODE-2', true)?.checked_in_station, 'Side door');
    assert.equal(copy.decide(copy.find('barcode', 'CODE-2', true), 'in'), 'already_checked_in');
    assert.equal(copy.decide(copy.find('barcode', 'CODE-3', true), 'in'), 'inactive');
    assert.equal(copy.decide(copy.find('barcode', 'NOBODY', true), 'in'), 'not_found');
    assert.equal(copy.decide(copy.find('barcode', '04AB', true), 'in'), 'checked_in', 'an unknown barcode is tried as a tag');
    assert.equal(copy.find('barcode', '04AB', false), undefined);
    assert.equal(copy.decide(copy.find('barcode', 'CODE-1', true), 'out'), 'not_checked_in');

    await copy.record(1, 'in', '2026-12-01T18:06:00', 'Front door');
    assert.equal(copy.decide(copy.find('guest_id', '1', false), 'in'), 'already_checked_in');
    assert.equal(copy.find('guest_id', '1', false)?.checked_in_station, 'Front door');

    const delta = fakeApi([guest(5, { first_name: 'Hedy', last_name: 'Lamarr' })], [], '2026-12-01T18:10:00');
    await copy.refresh(delta.api);
    assert.equal(delta.asked[0], '/events/1/guests?page=1&page_size=1000&timestamp=2026-12-01T18%3A05%3A00');
    assert.equal(copy.size, 5);
    assert.deepEqual(copy.search('hedy', 10).results.map((g) => g.id), [5]);
    assert.deepEqual(copy.search('first1 acme', 10).results.map((g) => g.id), [1]);
  });
});
