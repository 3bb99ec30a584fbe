import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { MSG } from '../../core/messages';
import { BADGE_MSG, MAX_BADGE_IDS, MAX_BADGES_PER_PDF } from '../../core/badges';
import { createEvent, createGroup, createRoleKey, twoOrganisers } from '../helpers/fixtures';
import { seedGuests, seedRegistrationType } from '../helpers/checkins';
import { download, importFile, readFile } from '../helpers/event-files';
import { TestServer } from '../helpers/server';

/** A PDF answer read back with poppler, as a person's PDF reader would read it. */
class PdfAnswer {
  constructor(readonly file: string) {}

  pages(): number {
    return Number(/Pages:\s+(\d+)/.exec(this.info())![1]);
  }

  /** Every page's size in points, `W x H`, rounded. */
  sizes(): string[] {
    const out = execFileSync('pdfinfo', ['-f', '1', '-l', String(this.pages()), this.file], { encoding: 'utf8' });
    return [...out.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)/g)].map((m) => `${Math.round(Number(m[1]))}x${Math.round(Number(m[2]))}`);
  }

  /** One page's text, without the bidi marks pdftotext puts around right-to-left lines. */
  text(page: number): string {
    return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), this.file, '-'], { encoding: 'utf8' }).replace(/[\u202A-\u202E]/g, '');
  }

  /** The QR code on a page, rendered at 150 dpi and decoded. */
  qr(page: number): string | undefined {
    const prefix = `${this.file}-${page}`;
    execFileSync('pdftoppm', ['-f', String(page), '-l', String(page), '-r', '150', '-png', '-singlefile', this.file, prefix]);
    const png = PNG.sync.read(fs.readFileSync(`${prefix}.png`));
    return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
  }

  private info(): string {
    return execFileSync('pdfinfo', [this.file], { encoding: 'utf8' });
  }
}

let n = 0;

/** GETs (or POSTs) a PDF; a PDF answer is saved for poppler, anything else parsed as JSON. */
async function fetchPdfOf(server: TestServer, pathName: string, options: { token?: string; body?: unknown } = {}) {
  const res = await fetch(server.baseUrl + pathName, {
    method: options.body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Token ${options.token ?? server.adminToken}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.headers.get('content-type') !== 'application/pdf') return { status: res.status, body: JSON.parse(bytes.toString('utf8')), pdf: undefined, headers: res.headers };
  const file = path.join(server.dir, `answer-${++n}.pdf`);
  fs.writeFileSync(file, bytes);
  return { status: res.status, body: undefined, pdf: new PdfAnswer(file), bytes, headers: res.headers };
}

describe('badges', () => {
  let server: TestServer;
  let groupId: number;
  let eventId: number;
  let typeId: number;
  let vipId: number;
  let ids: Record<string, number>;

  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server);
    eventId = await createEvent(server, groupId);
    typeId = await seedRegistrationType(server, eventId, 'Speaker');
    vipId = await seedRegistrationType(server, eventId, 'VIP');
    const [ada, nikos, amira, wang, long] = await seedGuests(server, eventId, typeId, [
      { first_name: 'Ada', last_name: 'Lovelace', company: 'Analytical Engines', barcode: 'BC-ADA-0001' },
      { first_name: 'Νίκος', last_name: 'Παπαδόπουλος', company: 'Ελληνική Εταιρεία', barcode: 'BC-GR-2' },
      { first_name: 'محمد', last_name: 'عبد الله', company: 'شركة النور', barcode: 'BC-AR-3' },
      { first_name: '王', last_name: '小明', company: '北京科技有限公司', barcode: 'BC-ZH-4' },
      { first_name: 'Maximiliane-Alexandra', last_name: 'von Hohenzollern-Sigmaringen-Württemberg-Oettingen', company: null, barcode: 'BC-LONG-5' },
    ]);
    const [vip, gone] = await seedGuests(server, eventId, vipId, [
      { first_name: 'Grace', last_name: 'Hopper', barcode: 'BC-VIP-6' },
      { first_name: 'Inactive', last_name: 'Guest', barcode: 'BC-OFF-7', objstatus: 2 },
    ]);
    ids = { ada, nikos, amira, wang, long, vip, gone };
  });
  after(() => server.stop());

  const fetchPdf = (pathName: string, options: { token?: string; body?: unknown } = {}) => fetchPdfOf(server, pathName, options);

  async function printCount(): Promise<number> {
    return (await server.get(`/events/${eventId}/badge_prints`)).body.count;
  }

  describe('GET /events/:event_id/guests/:guest_id/badge.pdf', () => {
    it('answers one A6 page with the name, company, type and a QR code of the barcode, and records the print', async () => {
      const res = await fetchPdf(`/events/${eventId}/guests/${ids.ada}/badge.pdf?station=Door%201`);
      assert.equal(res.status, 200);
      assert.equal(res.headers?.get('content-disposition'), `inline; filename="badge-${ids.ada}.pdf"`);
      const pdf = res.pdf!;
      assert.deepEqual(pdf.sizes(), ['298x420']);
      const text = pdf.text(1);
      for (const part of ['Ada', 'Lovelace', 'Analytical Engines', 'Speaker']) assert.ok(text.includes(part), `${part} in ${text}`);
      assert.equal(pdf.qr(1), 'BC-ADA-0001');
      // Fonts are subset: a badge is a few kilobytes, not the fonts' megabytes.
      assert.ok(res.bytes!.length < 60_000, `${res.bytes!.length} bytes`);
      const log = await server.get(`/events/${eventId}/badge_prints?guest_id=${ids.ada}`);
      assert.equal(log.body.count, 1);
      const [print] = log.body.results;
      assert.deepEqual({ ...print, id: 0, uid: '', printed_at: '', created: '', modified: '' }, {
        id: 0, uid: '', guest_id: ids.ada, station: 'Door 1', printed_by: 'user:1', printed_by_name: 'admin', printed_at: '', created: '', modified: '',
      });
      assert.match(print.printed_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    });

    it('prints Greek, Arabic and Chinese names that read back intact', async () => {
      const expected: [number, string[]][] = [
        [ids.nikos, ['Νίκος', 'Παπαδόπουλος', 'Ελληνική Εταιρεία']],
        [ids.amira, ['محمد', 'عبد الله', 'شركة النور']],
        [ids.wang, ['王', '小明', '北京科技有限公司']],
      ];
      for (const [id, parts] of expected) {
        const { pdf } = await fetchPdf(`/events/${eventId}/guests/${id}/badge.pdf`);
        const lines = pdf!.text(1).split('\n').map((l) => l.trim());
        for (const part of parts) assert.ok(lines.includes(part), `${part} in ${JSON.stringify(lines)}`);
      }
    });

    it('sets a long name on several lines, whole, and its text reads back as typed, hyphens and all', async () => {
      const { pdf } = await fetchPdf(`/events/${eventId}/guests/${ids.long}/badge.pdf`);
      const lines = pdf!.text(1).split('\n').map((l) => l.trim());
      for (const name of ['Maximiliane-Alexandra', 'von Hohenzollern-Sigmaringen-Württemberg-Oettingen']) assert.ok(lines.includes(name), `${name} in ${JSON.stringify(lines)}`);
      // Inside the page: pdftotext -bbox gives every word's box.
      const boxes = execFileSync('pdftotext', ['-bbox', pdf!.file, '-'], { encoding: 'utf8' });
      for (const m of boxes.matchAll(/xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"/g)) {
        assert.ok(Number(m[1]) >= 0 && Number(m[3]) <= 297.7 && Number(m[2]) >= 0 && Number(m[4]) <= 419.6, m[0]);
      }
    });

    it('reads back names with u and hyphens as typed, whatever badges were drawn before them', async () => {
      // Every accented Latin letter first: drawn before, they once took the "u" and the hyphen
      // out of every later PDF's text ("R th", "Ł kasz").
      const every = String.fromCodePoint(...Array.from({ length: 0x250 - 0xc0 }, (_, i) => 0xc0 + i), ...Array.from({ length: 0x100 }, (_, i) => 0x1e00 + i));
      const names = [
        { first_name: every.slice(0, 110), last_name: every.slice(110, 220), barcode: 'BC-ALL-1' },
        { first_name: every.slice(220, 330), last_name: every.slice(330, 440), barcode: 'BC-ALL-2' },
        { first_name: every.slice(440, 550), last_name: every.slice(550), barcode: 'BC-ALL-3' },
        { first_name: 'Rüth', last_name: 'Ruth', company: 'Blue-Sky Studios', barcode: 'BC-U-1' },
        { first_name: 'Łukasz', last_name: 'Wiśniewski-Müller', barcode: 'BC-U-2' },
        { first_name: 'Anne-Marie', last_name: 'Lefèvre-Dubois', barcode: 'BC-U-3' },
      ];
      const [all1, all2, all3, ruth, lukasz, anne] = await seedGuests(server, eventId, typeId, names);
      assert.equal((await fetchPdf(`/events/${eventId}/badges.pdf?guest_ids=${all1},${all2},${all3}`)).status, 200);
      const { pdf } = await fetchPdf(`/events/${eventId}/badges.pdf?guest_ids=${ruth},${lukasz},${anne}`);
      const expected = [['Rüth', 'Ruth', 'Blue-Sky Studios'], ['Łukasz', 'Wiśniewski-Müller'], ['Anne-Marie', 'Lefèvre-Dubois']];
      expected.forEach((parts, i) => {
        const lines = pdf!.text(i + 1).split('\n').map((l) => l.trim());
        for (const part of parts) assert.ok(lines.includes(part), `${part} in ${JSON.stringify(lines)}`);
      });
      // Searching the whole PDF finds each name as typed.
      const whole = execFileSync('pdftotext', [pdf!.file, '-'], { encoding: 'utf8' });
      for (const name of ['Rüth', 'Ruth', 'Łukasz', 'Wiśniewski-Müller', 'Anne-Marie', 'Lefèvre-Dubois']) assert.ok(whole.includes(name), name);
    });

    it('answers 404 "Guest not found." for a guest of another event and for no id at all', async () => {
      const other = await createEvent(server, groupId, { name: 'Other night' });
      for (const url of [`/events/${other}/guests/${ids.ada}/badge.pdf`, `/events/${eventId}/guests/999999/badge.pdf`, `/events/${eventId}/guests/abc/badge.pdf`]) {
        const res = await fetchPdf(url);
        assert.equal(res.status, 404, url);
        assert.deepEqual(res.body, { details: MSG.guestNotFound });
      }
    });
  });

  describe('PUT /events/:event_id/badge_layout', () => {
    it('defaults to A6 and prints every badge of a sheet on the size chosen', async () => {
      assert.deepEqual((await server.get(`/events/${eventId}/badge_layout`)).body, { size: 'A6', sizes: ['62x100mm', '4x3in', 'A6'] });
      for (const [size, points] of [['62x100mm', '176x283'], ['4x3in', '288x216'], ['A6', '298x420']]) {
        const put = await server.put(`/events/${eventId}/badge_layout`, { size });
        assert.equal(put.status, 200);
        assert.equal(put.body.size, size);
        const { pdf } = await fetchPdf(`/events/${eventId}/badges.pdf?guest_ids=${ids.ada},${ids.wang},${ids.long}`);
        assert.deepEqual(pdf!.sizes(), [points, points, points], size);
        assert.ok(pdf!.text(1).includes('Lovelace'));
        assert.ok(pdf!.text(2).includes('小明'));
        assert.ok(pdf!.text(3).includes('Hohenzollern'));
        assert.equal(pdf!.qr(2), 'BC-ZH-4', size);
      }
    });

    it('answers 400 for an unknown size and keeps the one set', async () => {
      const res = await server.put(`/events/${eventId}/badge_layout`, { size: 'A4' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { size: [BADGE_MSG.invalidSize] });
      assert.equal((await server.put(`/events/${eventId}/badge_layout`, {})).body.size[0], MSG.required);
      assert.equal((await server.get(`/events/${eventId}/badge_layout`)).body.size, 'A6');
    });
  });

  describe('GET /events/:event_id/badges.pdf', () => {
    it('prints a registration type, then everyone not yet printed, once each; inactive guests never', async () => {
      const vip = await fetchPdf(`/events/${eventId}/badges.pdf?registration_type=${vipId}&station=Desk`);
      assert.equal(vip.pdf!.pages(), 1);
      assert.ok(vip.pdf!.text(1).includes('Hopper'));
      const pending = await fetchPdf(`/events/${eventId}/badges.pdf?not_printed=true`);
      const printedBefore = new Set((await server.get(`/events/${eventId}/badge_prints?page_size=1000`)).body.results.map((p: { guest_id: number }) => p.guest_id));
      assert.equal(pending.status, 404);
      assert.deepEqual(pending.body, { details: BADGE_MSG.noGuestToPrint });
      assert.ok(printedBefore.has(ids.vip) && !printedBefore.has(ids.gone));
    });

    it('takes a long selection as a JSON body', async () => {
      const res = await fetchPdf(`/events/${eventId}/badges.pdf`, { body: { guest_ids: [ids.nikos, ids.amira], station: 'Console' } });
      assert.equal(res.pdf!.pages(), 2);
      assert.ok(res.pdf!.text(2).includes('عبد الله'));
    });

    it('answers 400 in field shape for bad selections and records nothing', async () => {
      const before = await printCount();
      const other = await twoOrganisers(server);
      const [foreign] = await seedGuests(server, other.b.eventId, await seedRegistrationType(server, other.b.eventId), [{ barcode: 'FOREIGN-1' }]);
      const tooMany = Array.from({ length: MAX_BADGE_IDS + 1 }, (_, i) => i + 1).join(',');
      const cases: [string, unknown][] = [
        ['?guest_ids=', { guest_ids: [MSG.blank] }],
        ['?guest_ids=1,x', { guest_ids: [BADGE_MSG.invalidIds] }],
        [`?guest_ids=${ids.ada},${foreign},999999`, { guest_ids: [BADGE_MSG.notGuestsOfEvent([foreign, 999999])] }],
        [`?guest_ids=${tooMany}`, { guest_ids: [BADGE_MSG.tooManyIds] }],
        ['', { non_field_errors: [BADGE_MSG.oneSelection] }],
        [`?guest_ids=${ids.ada}&not_printed=true`, { non_field_errors: [BADGE_MSG.oneSelection] }],
        ['?registration_type=999999', { registration_type: [MSG.registrationTypeNotFound] }],
      ];
      for (const [query, body] of cases) {
        const res = await fetchPdf(`/events/${eventId}/badges.pdf${query}`);
        assert.equal(res.status, 400, query.slice(0, 60));
        assert.deepEqual(res.body, body, query.slice(0, 60));
      }
      const tenThousand = await fetchPdf(`/events/${eventId}/badges.pdf`, { body: { guest_ids: Array.from({ length: 10_000 }, (_, i) => i + 1) } });
      assert.equal(tenThousand.status, 400);
      assert.deepEqual(tenThousand.body, { guest_ids: [BADGE_MSG.tooManyIds] });
      assert.equal(await printCount(), before);
    });
  });

  describe('at most 500 badges a PDF', () => {
    it('answers 400 naming the cap for a larger selection, prints a part with limit, and records nothing refused', async () => {
      const crowdEvent = await createEvent(server, groupId, { name: 'Crowd night' });
      const crowd = await seedRegistrationType(server, crowdEvent, 'Crowd');
      await seedGuests(server, crowdEvent, crowd, Array.from({ length: MAX_BADGES_PER_PDF + 1 }, (_, i) => ({ first_name: `Guest${i}`, last_name: 'Crowd', barcode: `BC-CROWD-${i}` })));
      const printed = async () => (await server.get(`/events/${crowdEvent}/badge_prints`)).body.count;
      const cases: [string, unknown][] = [
        [`?registration_type=${crowd}`, { registration_type: [BADGE_MSG.selectionTooLarge(MAX_BADGES_PER_PDF + 1)] }],
        ['?not_printed=true', { not_printed: [BADGE_MSG.selectionTooLarge(MAX_BADGES_PER_PDF + 1)] }],
        [`?registration_type=${crowd}&limit=0`, { limit: [BADGE_MSG.invalidLimit] }],
        [`?registration_type=${crowd}&limit=${MAX_BADGES_PER_PDF + 1}`, { limit: [BADGE_MSG.invalidLimit] }],
      ];
      for (const [query, body] of cases) {
        const res = await fetchPdf(`/events/${crowdEvent}/badges.pdf${query}`);
        assert.equal(res.status, 400, query);
        assert.deepEqual(res.body, body, query);
      }
      assert.match(BADGE_MSG.selectionTooLarge(5009), /5,009 guests; one PDF holds at most 500 badges/);
      assert.equal(await printed(), 0);
      // Printed a part at a time: each run of not_printed takes the next ones.
      const first = await fetchPdf(`/events/${crowdEvent}/badges.pdf?not_printed=true&limit=3`);
      assert.equal(first.pdf!.pages(), 3);
      assert.ok(first.pdf!.text(1).includes('Guest0'));
      const next = await fetchPdf(`/events/${crowdEvent}/badges.pdf?not_printed=true&limit=2`);
      assert.equal(next.pdf!.pages(), 2);
      assert.ok(next.pdf!.text(1).includes('Guest3'));
      assert.equal(await printed(), 5);
    });
  });

  describe('scope and roles', () => {
    it('answers 404 for an event of another organiser, whatever the route', async () => {
      const { a } = await twoOrganisers(server);
      for (const url of [`/events/${eventId}/guests/${ids.ada}/badge.pdf`, `/events/${eventId}/badges.pdf?guest_ids=${ids.ada}`, `/events/${eventId}/badge_prints`, `/events/${eventId}/badge_layout`]) {
        const res = await fetchPdf(url, { token: a.key });
        assert.equal(res.status, 404, url);
        assert.deepEqual(res.body, { detail: MSG.eventNotFound });
      }
      assert.equal((await server.put(`/events/${eventId}/badge_layout`, { size: 'A6' }, { token: a.key })).status, 404);
    });

    it('lets a door role print (recorded as its key) but not change the layout', async () => {
      const door = await createRoleKey(server, groupId, 'door', 'Front desk');
      const res = await fetchPdf(`/events/${eventId}/guests/${ids.vip}/badge.pdf?station=Front`, { token: door });
      assert.equal(res.status, 200);
      const prints = (await server.get(`/events/${eventId}/badge_prints?guest_id=${ids.vip}`, { token: door })).body.results;
      assert.equal(prints.length, 2, 'the reprint is listed beside the first print');
      assert.match(prints[1].printed_by, /^key:\d+$/);
      assert.equal(prints[1].printed_by_name, 'Front desk');
      const put = await server.put(`/events/${eventId}/badge_layout`, { size: 'A6' }, { token: door });
      assert.equal(put.status, 403);
      assert.deepEqual(put.body, { detail: MSG.roleNotAllowed });
    });
  });

  describe('GET /events/:event_id/badge_prints', () => {
    it('lists in the envelope, with a timestamp delta', async () => {
      const all = await server.get(`/events/${eventId}/badge_prints?page_size=2`);
      assert.equal(all.status, 200);
      assert.equal(all.body.results.length, 2);
      assert.ok(all.body.count > 2);
      assert.match(all.body.next, /page=2/);
      const since = new Date(Date.now() + 60_000).toISOString();
      assert.equal((await server.get(`/events/${eventId}/badge_prints?timestamp=${since}`)).body.count, 0);
      assert.deepEqual((await server.get(`/events/${eventId}/badge_prints?timestamp=never`)).body, { timestamp: [MSG.invalidTimestamp] });
    });
  });

  describe('event files', () => {
    it('carry the print log; importing the same file twice adds each print once', async () => {
      const file = await download(server, eventId);
      const prints = readFile(file).records.filter((r) => r.table === 'badge_prints');
      assert.equal(prints.length, await printCount());
      assert.equal(typeof prints[0].record.guest_uid, 'string');
      assert.equal('printed_by' in prints[0].record, false, 'local user and key ids stay on their laptop');
      const laptop = await TestServer.start();
      try {
        const first = await importFile(laptop, file, `?group_id=${await createGroup(laptop)}`);
        assert.equal(first.status, 201, JSON.stringify(first.body));
        assert.equal(first.body.created.badge_prints, prints.length);
        const again = await importFile(laptop, file);
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.deepEqual([again.body.created.badge_prints, again.body.unchanged.badge_prints], [0, prints.length]);
        const copied = await laptop.get(`/events/${first.body.event_id}/badge_prints?page_size=1000`);
        assert.equal(copied.body.count, prints.length);
        assert.deepEqual(copied.body.results.map((p: { uid: string }) => p.uid).sort(), prints.map((p) => p.record.uid).sort());
        assert.equal(copied.body.results[0].printed_by, null);
        assert.equal(copied.body.results[0].printed_by_name, 'admin');
      } finally {
        await laptop.stop();
      }
    });
  });
});

describe('badges drawn by the worker: bounds and faults', () => {
  let server: TestServer;
  let eventId: number;
  let groupId: number;
  let ids: Record<string, number>;
  const faults = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-badge-faults-'));
  const release = path.join(faults, 'release');

  before(async () => {
    process.env.DOORLIST_TEST_BADGE_FAULTS = faults;
    server = await TestServer.start({}, { badgeWorkerFile: path.resolve(__dirname, '..', '..', 'test', 'helpers', 'badge-worker-faults.ts') });
    groupId = await createGroup(server);
    eventId = await createEvent(server, groupId);
    const typeId = await seedRegistrationType(server, eventId, 'Speaker');
    const [ada, grace, crash, flaky, hold] = await seedGuests(server, eventId, typeId, [
      { first_name: 'Ada', last_name: 'Lovelace', barcode: 'BC-W-ADA' },
      { first_name: 'Grace', last_name: 'Hopper', barcode: 'BC-W-GRACE' },
      { first_name: 'Crash', last_name: 'Always', barcode: 'BC-W-CRASH' },
      { first_name: 'Flaky', last_name: 'Once', barcode: 'BC-W-FLAKY' },
      { first_name: 'Hold', last_name: 'Until Released', barcode: 'BC-W-HOLD' },
    ]);
    ids = { ada, grace, crash, flaky, hold };
  });
  after(async () => {
    fs.writeFileSync(release, '');
    await server.stop();
    fs.rmSync(faults, { recursive: true, force: true });
  });

  const printsOf = async (guestId: number) => (await server.get(`/events/${eventId}/badge_prints?guest_id=${guestId}`)).body.count as number;

  /** Requests started at once; `settled` resolves once `count` of them have answered. */
  function started<T>(requests: Promise<T>[]) {
    const answered: T[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    for (const request of requests) {
      void request.then((answer) => {
        answered.push(answer);
        for (const w of waiters) if (answered.length >= w.count) w.resolve();
      });
    }
    return { answered, settled: (count: number) => new Promise<void>((resolve) => (answered.length >= count ? resolve() : waiters.push({ count, resolve }))), all: Promise.all(requests) };
  }

  it('a worker that stops on a badge answers 422 (no 5xx), records nothing, and the next badge prints', async () => {
    const res = await fetchPdfOf(server, `/events/${eventId}/guests/${ids.crash}/badge.pdf`);
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, { detail: BADGE_MSG.notDrawn });
    assert.equal(await printsOf(ids.crash), 0);
    const next = await fetchPdfOf(server, `/events/${eventId}/guests/${ids.ada}/badge.pdf`);
    assert.equal(next.status, 200);
    assert.ok(next.pdf!.text(1).includes('Lovelace'));
    assert.equal(await printsOf(ids.ada), 1);
  });

  it('a worker that stops once is started again: the badge prints and is recorded once', async () => {
    const res = await fetchPdfOf(server, `/events/${eventId}/badges.pdf?guest_ids=${ids.flaky},${ids.grace}`);
    assert.equal(res.status, 200);
    assert.equal(res.pdf!.pages(), 2);
    assert.ok(res.pdf!.text(1).includes('Flaky') && res.pdf!.text(2).includes('Hopper'));
    assert.equal(fs.existsSync(path.join(faults, 'flaky-done')), true, 'the first worker did stop');
    assert.equal(await printsOf(ids.flaky), 1);
  });

  it('answers 429 with Retry-After to one key past its bounds (2 drawing, 6 waiting); the others all print, each recorded once', async () => {
    fs.rmSync(release, { force: true });
    const key = await createRoleKey(server, groupId, 'door', 'Busy door');
    const before = { hold: await printsOf(ids.hold), ada: await printsOf(ids.ada), grace: await printsOf(ids.grace) };
    // Each PDF is the held guest and another, so the answers show that no two sheets mixed.
    const others = Array.from({ length: 9 }, (_, i) => (i % 2 === 0 ? ids.ada : ids.grace));
    const requests = started(others.map((other) => fetchPdfOf(server, `/events/${eventId}/badges.pdf`, { token: key, body: { guest_ids: [ids.hold, other] } })));
    await requests.settled(1);
    const [refused] = requests.answered;
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, { detail: BADGE_MSG.busyCaller(2, 6) });
    assert.equal(refused.headers.get('retry-after'), '2');
    fs.writeFileSync(release, '');
    const answers = await requests.all;
    const printed = answers.filter((a) => a.status === 200);
    assert.equal(printed.length, 8);
    assert.equal(answers.filter((a) => a.status !== 200).length, 1);
    for (const answer of printed) {
      assert.equal(answer.pdf!.pages(), 2);
      assert.ok(answer.pdf!.text(1).includes('Until Released'));
      assert.ok(/Lovelace|Hopper/.test(answer.pdf!.text(2)));
    }
    const secondPages = printed.map((a) => (a.pdf!.text(2).includes('Lovelace') ? 'ada' : 'grace'));
    assert.equal(await printsOf(ids.hold), before.hold + 8);
    assert.equal(await printsOf(ids.ada), before.ada + secondPages.filter((p) => p === 'ada').length);
    assert.equal(await printsOf(ids.grace), before.grace + secondPages.filter((p) => p === 'grace').length);
  });

  it('answers 503 with Retry-After past the whole queue (3 drawing, 24 waiting), whoever asks', async () => {
    fs.rmSync(release, { force: true });
    // Five doors, six badges each: no door past its own bounds, 30 against the 27 places.
    const keys = await Promise.all([1, 2, 3, 4, 5].map((i) => createRoleKey(server, groupId, 'door', `Door ${i}`)));
    const before = await printsOf(ids.hold);
    const requests = started(keys.flatMap((key) => Array.from({ length: 6 }, () => fetchPdfOf(server, `/events/${eventId}/guests/${ids.hold}/badge.pdf`, { token: key }))));
    await requests.settled(3);
    for (const refused of requests.answered) {
      assert.equal(refused.status, 503);
      assert.deepEqual(refused.body, { detail: BADGE_MSG.busyAll(3, 24) });
      assert.equal(refused.headers.get('retry-after'), '2');
    }
    fs.writeFileSync(release, '');
    const answers = await requests.all;
    assert.deepEqual(answers.map((a) => a.status).sort(), [...Array<number>(27).fill(200), ...Array<number>(3).fill(503)]);
    assert.equal(await printsOf(ids.hold), before + 27);
  });
});
