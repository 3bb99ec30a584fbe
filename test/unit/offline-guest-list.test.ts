import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Api } from '../../renderer/src/api';
import { OfflineGuestList, listPages } from '../../renderer/src/offline-guest-list';

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

/** The three list endpoints the copy reads, answering one page; records what it asked. */
function fakeApi(guests: unknown[], checkins: unknown[], startTime: string, questions: unknown[] = []) {
  const asked: string[] = [];
  const api = {
    get: async (path: string) => {
      asked.push(path);
      if (path.includes('/guests?')) return { results: guests, next: null, start_time: startTime };
      if (path.includes('/custom_questions?')) return { results: questions, next: null };
      return { results: checkins, next: null };
    },
  } as unknown as Api;
  return { api, asked };
}

const pick = (form?: { kind: string; code: string; guest: { id: number } }) => form && { kind: form.kind, code: form.code, id: form.guest.id };

describe('the station\'s copy of the guest list', () => {
  it('loads whole, then asks only for what changed since the last start_time, and decides as the event\'s door does', async () => {
    const copy = await OfflineGuestList.open(1);
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

  it('names the form in which a guest holds a scanned code, so the door asks the server once', async () => {
    const copy = await OfflineGuestList.open(5);
    await copy.refresh(fakeApi([guest(1, { barcode: 'AbC-1' }), guest(2, { nfc_tag: '04ab' })], [], '2026-12-01T18:05:00').api);
    assert.deepEqual(pick(copy.knownForm('barcode', 'AbC-1', true)), { kind: 'barcode', code: 'AbC-1', id: 1 });
    assert.deepEqual(pick(copy.knownForm('barcode', 'aBc-1', true)), { kind: 'barcode', code: 'AbC-1', id: 1 }, 'Caps Lock');
    assert.deepEqual(pick(copy.knownForm('barcode', '04AB', true)), { kind: 'nfc_tag', code: '04ab', id: 2 }, 'a tag typed by a wedge reader');
    assert.equal(copy.knownForm('barcode', '04ab', false), undefined, 'no tag fallback when it is off');
    assert.deepEqual(pick(copy.knownForm('nfc_tag', '04ab', false)), { kind: 'nfc_tag', code: '04ab', id: 2 });
    assert.equal(copy.knownForm('barcode', 'NOBODY', true), undefined);
  });

  it('gives a found guest the answers to the questions shown at the door, as a scan does', async () => {
    const copy = await OfflineGuestList.open(6);
    const answers = [
      { question_id: 7, question_text: 'Meal', objstatus: '1', answer: [{ answer: 'Fish', id: '70' }] },
      { question_id: 8, question_text: 'Diet', objstatus: '1', answer: [{ answer: 'Nuts', id: '80' }, { answer: 'Gluten', id: '81' }] },
      { question_id: 9, question_text: 'Hidden', objstatus: '1', answer: [{ answer: 'secret', id: null }] },
    ];
    const questions = [
      { id: 9, question: 'Hidden', objstatus: '1', show_at_door: false },
      { id: 8, question: 'Allergies', objstatus: '1', show_at_door: true },
      { id: 7, question: 'Meal', objstatus: '1', show_at_door: true },
    ];
    await copy.refresh(fakeApi([guest(1, { custom_questions: answers }), guest(2)], [], '2026-12-01T18:05:00', questions).api);
    assert.deepEqual(copy.find('barcode', 'CODE-1', true)?.door_answers, [
      { question_id: 7, question: 'Meal', answer: 'Fish' },
      { question_id: 8, question: 'Allergies', answer: 'Nuts; Gluten' },
    ]);
    assert.deepEqual(copy.find('guest_id', '2', false)?.door_answers, []);
  });

  it('searches as the server does: case and accents ignored on names, e-mail and company, words by prefix', async () => {
    const copy = await OfflineGuestList.open(2);
    const people = [
      guest(1, { first_name: 'Zoë', last_name: 'Müller', company: 'Société Générale' }),
      guest(2, { first_name: 'Hans', last_name: 'Muller', email: 'hans@bücher.example' }),
      guest(3, { first_name: 'François', last_name: 'Ångström' }),
    ];
    await copy.refresh(fakeApi(people, [], '2026-12-01T18:00:00').api);
    const found = (q: string) => copy.search(q, 10).results.map((g) => g.id);
    assert.deepEqual(found('muller'), [1, 2]);
    assert.deepEqual(found('MÜLLER'), [1, 2]);
    assert.deepEqual(found('francois'), [3]);
    assert.deepEqual(found('zoe muller'), [1]);
    assert.deepEqual(found('societe'), [1]);
    assert.deepEqual(found('bucher'), [2]);
    assert.deepEqual(found('code-3'), [3]);
    assert.deepEqual(found('ller'), []);
  });

  it('spells letters of their own plainly, as the server\'s search does (core/fold.ts)', async () => {
    const copy = await OfflineGuestList.open(4);
    const people = [
      guest(1, { first_name: 'Søren', last_name: 'Ødegård' }),
      guest(2, { first_name: 'Łukasz', last_name: 'García' }),
      guest(3, { first_name: 'Lech', last_name: 'Wałęsa', company: 'Straße Æsir' }),
    ];
    await copy.refresh(fakeApi(people, [], '2026-12-01T18:00:00').api);
    const found = (q: string) => copy.search(q, 10).results.map((g) => g.id);
    assert.deepEqual(found('soren'), [1]);
    assert.deepEqual(found('ODEGARD'), [1]);
    assert.deepEqual(found('lukasz garcia'), [2]);
    assert.deepEqual(found('walesa strasse aesir'), [3]);
    assert.deepEqual(found('søren'), [1]);
  });

  it('asks for the next pages while one is read, yields every page in order, and follows a list that grew or shrank', async () => {
    const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
    /** A list envelope of `total` items, `size` a page, answering page n after (5 - n % 5) ms. */
    function pagedApi(total: () => number, size = 1000) {
      const asked: number[] = [];
      let inFlight = 0;
      let mostInFlight = 0;
      const api = {
        get: async (path: string) => {
          const page = Number(/page=(\d+)/.exec(path)?.[1]);
          asked.push(page);
          mostInFlight = Math.max(mostInFlight, ++inFlight);
          for (let i = 0; i < 5 - (page % 5); i++) await tick();
          inFlight--;
          const count = total();
          const results = Array.from({ length: Math.max(0, Math.min(size, count - (page - 1) * size)) }, (_, i) => (page - 1) * size + i);
          return { count, results, next: page * size < count ? `next-${page + 1}` : null };
        },
      } as unknown as Api;
      return { api, asked, mostInFlight: () => mostInFlight };
    }
    const read = async (api: Api, onPage = () => {}) => {
      const items: number[] = [];
      for await (const body of listPages<number>(api, (page) => `/x?page=${page}`, 2)) {
        items.push(...body.results);
        onPage();
      }
      return items;
    };
    const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

    const steady = pagedApi(() => 4500);
    assert.deepEqual(await read(steady.api), upTo(4500), 'every item once, in order, though pages come back out of order');
    assert.deepEqual(steady.asked, [1, 2, 3, 4, 5]);
    assert.equal(steady.mostInFlight(), 2, 'two pages asked for at once, never more');

    const smaller = pagedApi(() => 2300, 500);
    assert.deepEqual(await read(smaller.api), upTo(2300), 'the page size is the first page\'s');
    assert.deepEqual(smaller.asked, [1, 2, 3, 4, 5]);

    let grown = 2500;
    const growing = pagedApi(() => grown);
    assert.deepEqual(await read(growing.api, () => (grown = 5200)), upTo(5200), 'pages past the first count are followed by their next links');

    let shrunk = 50_000;
    const shrinking = pagedApi(() => shrunk);
    assert.deepEqual(await read(shrinking.api, () => (shrunk = 1500)), upTo(1500), 'a list that shrank ends where its pages say');
    assert.deepEqual(shrinking.asked, [1, 2, 3], 'no page asked for after one that has no next, but those already on their way');

    const oneByOne = pagedApi(() => 3500);
    const items: number[] = [];
    for await (const body of listPages<number>(oneByOne.api, (page) => `/x?page=${page}`)) items.push(...body.results);
    assert.deepEqual(items, upTo(3500));
    assert.equal(oneByOne.mostInFlight(), 1, 'one page at a time unless asked for more');

    const failing = {
      get: async (path: string) => {
        const page = Number(/page=(\d+)/.exec(path)?.[1]);
        await tick();
        if (page >= 2) throw new Error(`page ${page} failed`);
        return { count: 5000, results: [page], next: 'more' };
      },
    } as unknown as Api;
    await assert.rejects(read(failing), /page 2 failed/, 'a failed page fails the load (page 3, asked for beside it, fails unhandled nowhere)');
  });

  it('loads a whole list two pages at once and a delta one page after another', async () => {
    const copy = await OfflineGuestList.open(3);
    let inFlight = 0;
    let mostInFlight = 0;
    const api = {
      get: async (path: string) => {
        if (!path.includes('/guests?')) return { count: 0, results: [], next: null };
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
        const page = Number(/page=(\d+)/.exec(path)?.[1]);
        const results = Array.from({ length: page === 3 ? 10 : 1000 }, (_, i) => guest((page - 1) * 1000 + i + 1));
        return { count: 2010, results, next: page < 3 ? 'more' : null, start_time: '2026-12-01T18:05:00' };
      },
    } as unknown as Api;
    await copy.refresh(api);
    assert.equal(copy.size, 2010);
    assert.equal(mostInFlight, 2, 'the whole list: two pages at once');
    mostInFlight = 0;
    await copy.refresh(api);
    assert.equal(mostInFlight, 1, 'a delta: a guest checked in meanwhile moves the pages after it, so one page after another');
  });

  it('keeps the earliest start_time of pages asked for together as the next delta\'s timestamp', async () => {
    const copy = await OfflineGuestList.open(2);
    const startTimes = ['2026-12-01T18:05:02', '2026-12-01T18:05:00', '2026-12-01T18:05:01'];
    const asked: string[] = [];
    const api = {
      get: async (path: string) => {
        asked.push(path);
        if (!path.includes('/guests?')) return { count: 0, results: [], next: null };
        const page = Number(/page=(\d+)/.exec(path)?.[1]);
        const results = Array.from({ length: page === 3 ? 10 : 1000 }, (_, i) => guest((page - 1) * 1000 + i + 1));
        return { count: 2010, results, next: page < 3 ? 'more' : null, start_time: startTimes[page - 1] };
      },
    } as unknown as Api;
    await copy.refresh(api);
    assert.equal(copy.size, 2010);
    const delta = fakeApi([], [], '2026-12-01T18:10:00');
    await copy.refresh(delta.api);
    assert.equal(delta.asked[0], '/events/2/guests?page=1&page_size=1000&timestamp=2026-12-01T18%3A05%3A00');
  });
});
