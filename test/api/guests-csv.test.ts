import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { TestServer } from '../helpers/server';
import { createApiKey, createEvent, createGroup } from '../helpers/fixtures';
import { MSG } from '../../core/messages';
import { guestsWithSearchTerms } from '../../db/search-index';

const CSV = { 'content-type': 'text/csv' };

interface EventSetup {
  eventId: number;
  vip: number;
  general: number;
  diet: { id: number; choices: Record<string, number> };
  topics: { id: number; choices: Record<string, number> };
  allergies: number;
}

/** An event with two registration types and a radio, a checkbox and a text question. */
async function setUpEvent(server: TestServer, groupId: number): Promise<EventSetup> {
  const eventId = await createEvent(server, groupId);
  const type = async (name: string) => {
    const res = await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name, description: '' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as number;
  };
  const question = async (question: string, type: string, answers: string[] = []) => {
    const res = await server.post(`/events/${eventId}/custom_questions`, { question, type, choices: answers.map((answer) => ({ answer })) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { id: res.body.id as number, choices: Object.fromEntries(res.body.choices.map((c: any) => [c.answer, c.id])) as Record<string, number> };
  };
  return {
    eventId,
    vip: await type('VIP'),
    general: await type('General'),
    diet: await question('Diet?', 'radio', ['Vegan', 'Omnivore']),
    topics: await question('Topics', 'checkbox', ['AI', 'Music', 'Food']),
    allergies: (await question('Allergies', 'text')).id,
  };
}

function upload(server: TestServer, eventId: number, csv: string, query = '', token?: string) {
  return server.request('POST', `/events/${eventId}/guests.csv${query}`, { rawBody: csv, headers: CSV, token });
}

async function download(server: TestServer, eventId: number, token?: string) {
  const res = await fetch(`${server.baseUrl}/events/${eventId}/guests.csv`, { headers: { authorization: `Token ${token ?? server.adminToken}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function guestCount(server: TestServer, eventId: number): Promise<number> {
  return Number((await server.db('guests').where({ event_id: eventId }).count({ n: '*' }))[0].n);
}

const SPREADSHEET = [
  'First Name,Last Name,E-mail,Company,Phone,Barcode,NFC,Registration Type,Attention,Notes,Diet?,Topics,Allergies,Shoe size',
  'Ada,Lovelace,ada@example.test,Analytical Engines,+44 20 7946 0958,ADA-1,NFC-ADA,VIP,X,Check ID at the door,Vegan,AI; Music,"Likes ""tea"", not coffee",38',
  'Grace,Hopper,grace@example.test,,,,,general,,,Omnivore,,,',
  '',
].join('\r\n');

describe('POST /events/:event_id/guests.csv', () => {
  let server: TestServer;
  let groupId: number;
  let setup: EventSetup;

  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server);
    setup = await setUpEvent(server, groupId);
  });
  after(() => server.stop());

  it('answers 200 on dry_run=true with what would happen, writing nothing', async () => {
    const res = await upload(server, setup.eventId, SPREADSHEET, '?dry_run=true');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      dry_run: true,
      created: 0,
      would_create: 2,
      columns: {
        'First Name': 'first_name', 'Last Name': 'last_name', 'E-mail': 'email', Company: 'company', Phone: 'phone', Barcode: 'barcode', NFC: 'nfc_tag',
        'Registration Type': 'registration_type', Attention: 'attention', Notes: 'notes',
        'Diet?': `question ${setup.diet.id}`, Topics: `question ${setup.topics.id}`, Allergies: `question ${setup.allergies}`,
      },
      ignored_columns: ['Shoe size'],
      read_only_columns: [],
    });
    assert.equal(await guestCount(server, setup.eventId), 0);
  });

  it('answers 201 and adds every row: common header spellings, registration type by name, answers by choice text', async () => {
    const res = await upload(server, setup.eventId, SPREADSHEET);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.created, 2);
    const guests = await server.get(`/events/${setup.eventId}/guests`);
    assert.equal(guests.status, 200);
    const [ada, grace] = guests.body.results;
    assert.equal(ada.first_name, 'Ada');
    assert.equal(ada.email, 'ada@example.test');
    assert.equal(ada.company, 'Analytical Engines');
    assert.equal(ada.barcode, 'ADA-1');
    assert.equal(ada.nfc_tag, 'NFC-ADA');
    assert.equal(ada.registration_type, setup.vip);
    const answers = Object.fromEntries(ada.custom_questions.map((q: any) => [q.question_text, q.answer.map((a: any) => a.answer)]));
    assert.deepEqual(answers, { 'Diet?': ['Vegan'], Topics: ['AI', 'Music'], Allergies: ['Likes "tea", not coffee'] });
    assert.equal(ada.attention, true);
    assert.equal(ada.notes, 'Check ID at the door');
    assert.equal(ada.phone, '+44 20 7946 0958');
    assert.equal(grace.registration_type, setup.general);
    assert.equal(grace.attention, false);
    assert.equal(grace.notes, null);
    assert.equal(grace.company, null);
    assert.equal(grace.nfc_tag, null);
    assert.match(grace.barcode, /^\S+$/, 'an empty barcode cell gets a generated barcode');
  });

  it('answers 400 with every bad row and its messages, and writes nothing', async () => {
    const before = await guestCount(server, setup.eventId);
    const csv = [
      'Vorname,last_name,email,Ticket code,nfc_tag,Ticket type,Diet?,VIP?',
      ',Blank,blank@example.test,B-1,,VIP,Vegan,', // row 2: blank first name
      'Dup,One,d1@example.test,SAME,,VIP,,', // row 3: fine on its own
      'Dup,Two,d2@example.test,SAME,,VIP,,', // row 4: barcode repeated in the file
      'Old,Code,old@example.test,ADA-1,,VIP,,', // row 5: barcode of a guest already here
      'Bad,Type,bt@example.test,B-5,,Backstage,,', // row 6: no such registration type
      'Bad,Choice,bc@example.test,B-6,,VIP,Pescatarian,', // row 7: no such choice
      'Tag,Taken,tt@example.test,B-7,NFC-ADA,VIP,,', // row 8: NFC tag of a guest already here
      'Good,Row,good@example.test,B-8,,VIP,Omnivore,', // row 9
      'Bad,Attention,ba@example.test,B-10,,VIP,,maybe', // row 10: attention neither yes nor no
    ].join('\n')
      // The attention column, named as a person would.
      .replace('VIP?', 'Attention');
    const res = await upload(server, setup.eventId, csv);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    // Each error names the file's own column, the value, and what would be accepted.
    assert.deepEqual(res.body, {
      rows: [
        { row: 2, errors: { Vorname: [MSG.blank] } },
        { row: 4, errors: { 'Ticket code': [MSG.csvCodeRepeated('SAME', 3)] } },
        { row: 5, errors: { 'Ticket code': [MSG.csvCodeTaken('ADA-1')] } },
        { row: 6, errors: { 'Ticket type': [MSG.csvRegistrationTypeUnknown('Backstage', ['VIP', 'General'])] } },
        { row: 7, errors: { 'Diet?': [MSG.csvChoiceUnknown('Pescatarian', ['Vegan', 'Omnivore'])] } },
        { row: 8, errors: { nfc_tag: [MSG.csvCodeTaken('NFC-ADA')] } },
        { row: 10, errors: { Attention: [MSG.csvAttentionInvalid('maybe')] } },
      ],
      more_rows: 0,
    });
    assert.equal(await guestCount(server, setup.eventId), before);
  });

  it('reads a semicolon-separated file, and counts rows as the spreadsheet does (blank lines too)', async () => {
    const csv = 'Vorname;Nachname;Email;Registration Type;Topics\nZoe;Semi;zoe@example.test;VIP;AI; Food\n\n;Blank;b@example.test;VIP;\n';
    const res = await upload(server, setup.eventId, csv, '?dry_run=true');
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, { rows: [{ row: 4, errors: { Vorname: [MSG.blank] } }], more_rows: 0 });
    const ok = await upload(server, setup.eventId, csv.split('\n').slice(0, 2).join('\n'), '?dry_run=true');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.would_create, 1);
  });

  it('answers 400 naming what to do first for an event with no registration type yet, with or without the column', async () => {
    const bare = await createEvent(server, groupId, { name: 'No types yet' });
    const without = await upload(server, bare, 'First Name,Last Name,Email\nAda,Lovelace,ada@example.test\n');
    assert.equal(without.status, 400);
    assert.deepEqual(without.body, { rows: [{ row: 2, errors: { 'Registration type': ['This event has no registration type yet: add one, then import its guests.'] } }], more_rows: 0 });
    const named = await upload(server, bare, 'First Name,Last Name,Email,Registration Type\nAda,Lovelace,ada@example.test,VIP\n');
    assert.equal(named.status, 400);
    assert.deepEqual(named.body, { rows: [{ row: 2, errors: { 'Registration Type': ['"VIP" is not a registration type of this event, which has none yet: add one, then import its guests.'] } }], more_rows: 0 });
    assert.equal(await guestCount(server, bare), 0);
  });

  it('answers 400 This field is required. on every row when a required column is missing', async () => {
    const res = await upload(server, setup.eventId, 'Last Name,Email,Registration Type\nSolo,solo@example.test,VIP\n');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { rows: [{ row: 2, errors: { 'First name': [MSG.required] } }], more_rows: 0 });
  });

  it('answers 400 Barcode cannot be empty for a barcode of spaces', async () => {
    const res = await upload(server, setup.eventId, 'First Name,Last Name,Email,Barcode,Registration Type\nSpace,Code,sc@example.test,"   ",VIP\n');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { rows: [{ row: 2, errors: { Barcode: [MSG.barcodeEmpty] } }], more_rows: 0 });
  });

  it('answers 400 with a clear message for a CSV that cannot be read', async () => {
    const res = await upload(server, setup.eventId, 'First Name,Last Name\n"Ada,Lovelace\n');
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /^The CSV file cannot be read: /);
  });

  it('answers 400 for bytes that are not UTF-8, writing nothing; reads windows-1252 when the charset says so', async () => {
    const event = await setUpEvent(server, groupId);
    const latin1 = Buffer.from('First Name,Last Name,E-mail,Registration Type\r\nZo\u00e9,Ren\u00e9,zoe@example.test,VIP\r\n', 'latin1');
    const refused = await server.request('POST', `/events/${event.eventId}/guests.csv`, { rawBody: latin1, headers: CSV });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { detail: MSG.csvNotDecodable('utf-8') });
    assert.equal(await guestCount(server, event.eventId), 0);
    const unknown = await server.request('POST', `/events/${event.eventId}/guests.csv`, { rawBody: latin1, headers: { 'content-type': 'text/csv; charset=klingon' } });
    assert.deepEqual(unknown.body, { detail: MSG.csvCharsetUnknown('klingon') });
    const read = await server.request('POST', `/events/${event.eventId}/guests.csv`, { rawBody: latin1, headers: { 'content-type': 'text/csv; charset=windows-1252' } });
    assert.equal(read.status, 201, JSON.stringify(read.body));
    const [guest] = (await server.get(`/events/${event.eventId}/guests`)).body.results;
    assert.equal(guest.first_name, 'Zo\u00e9');
    assert.equal(guest.last_name, 'Ren\u00e9');
  });

  it('answers 400 for an empty body and for JSON', async () => {
    const empty = await upload(server, setup.eventId, '');
    assert.equal(empty.status, 400);
    assert.deepEqual(empty.body, { detail: MSG.csvNoHeader });
    const json = await server.post(`/events/${setup.eventId}/guests.csv`, { first_name: 'Ada' });
    assert.equal(json.status, 400);
    assert.deepEqual(json.body, { detail: MSG.csvContentType });
  });

  it('adds a file all or nothing while the door scans: the list never shows part of it, a late refusal leaves no trace', async () => {
    const eventId = await createEvent(server, groupId, { name: 'Door open' });
    const type = (await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Day', description: '' })).body.id;
    const doorGuests: number[] = [];
    for (let i = 0; i < 40; i++) doorGuests.push((await server.post(`/events/${eventId}/guests`, { registration_type: type, first_name: `Door${i}`, last_name: 'Guest', email: '', barcode: `DOOR-${i}` })).body.id);
    const rows = 5000; // more than one staged batch
    const file = (lastBarcode: string) =>
      ['first_name,last_name,email,barcode,registration_type', ...Array.from({ length: rows }, (_, i) => `Csv${i},Row,csv${i}@example.test,${i === rows - 1 ? lastBarcode : `CSV-${i}`},Day`)].join('\n');
    const count = async () => (await server.get(`/events/${eventId}/guests?page_size=1`)).body.count as number;
    const terms = async () => guestsWithSearchTerms(server.db, eventId);
    const hidden = async () => Number((await server.db('events').whereNotNull('importing_since').count({ n: '*' }))[0].n);

    let scanned = 0;
    /** Scans the door's guests and reads the list while `work` runs: every count seen, every scan's status. */
    const alongside = async <T>(work: Promise<T>) => {
      const counts: number[] = [];
      const statuses: number[] = [];
      let done = false;
      const door = (async () => {
        while (!done && scanned < doorGuests.length) {
          const scan = await server.post(`/events/${eventId}/checkins`, { guest_id: doorGuests[scanned++] });
          statuses.push(scan.status);
          counts.push(await count());
        }
      })();
      const result = await work.finally(() => (done = true));
      await door;
      return { result, counts, statuses };
    };

    const [termsBefore, hiddenBefore] = [await terms(), await hidden()];
    // The last row's barcode is a door guest's: found only once every row has been staged.
    const refused = await alongside(upload(server, eventId, file('DOOR-0')));
    assert.equal(refused.result.status, 400, JSON.stringify(refused.result.body));
    assert.deepEqual(refused.result.body, { rows: [{ row: rows + 1, errors: { barcode: [MSG.csvCodeTaken('DOOR-0')] } }], more_rows: 0 });
    assert.ok(refused.statuses.every((s) => s === 201), JSON.stringify(refused.statuses));
    assert.ok(refused.counts.every((c) => c === 40), JSON.stringify(refused.counts));
    assert.deepEqual([await count(), await terms(), await hidden()], [40, termsBefore, hiddenBefore]);

    const added = await alongside(upload(server, eventId, file('CSV-LAST')));
    assert.equal(added.result.status, 201, JSON.stringify(added.result.body));
    assert.equal(added.result.body.created, rows);
    assert.ok(added.statuses.every((s) => s === 201), JSON.stringify(added.statuses));
    assert.ok(added.counts.every((c) => c === 40 || c === 40 + rows), JSON.stringify(added.counts));
    assert.deepEqual([await count(), await hidden()], [40 + rows, hiddenBefore]);
    const found = await server.get(`/events/${eventId}/guests?search=csv-last`);
    assert.deepEqual(found.body.results.map((g: { first_name: string }) => g.first_name), [`Csv${rows - 1}`]);
    // Two words that each match every imported guest, searched at once (how fast: `npm run bench`, section search).
    assert.equal((await server.get(`/events/${eventId}/guests?search=row%20example&page_size=1`)).body.count, rows);
  });

  it('adds exactly one of two files imported at once that share a barcode; the other is refused whole', async () => {
    const eventId = await createEvent(server, groupId, { name: 'Two imports' });
    await server.post(`/events/${eventId}/registration_types`, { type: 'ticket', name: 'Day', description: '' });
    const file = (prefix: string) =>
      ['first_name,last_name,email,barcode', ...Array.from({ length: 1200 }, (_, i) => `${prefix}${i},Row,,${i === 600 ? 'SHARED-CODE' : `${prefix}-${i}`}`)].join('\n');
    // Two callers: one caller's second upload at once is refused before it is read (upload-bounds).
    const otherKey = await createApiKey(server, groupId, 'second office laptop');
    const results = await Promise.all([upload(server, eventId, file('A')), upload(server, eventId, file('B'), '', otherKey)]);
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 400], JSON.stringify(results.map((r) => r.body)));
    const refused = results.find((r) => r.status === 400)!;
    assert.deepEqual(refused.body, { rows: [{ row: 602, errors: { barcode: [MSG.csvCodeTaken('SHARED-CODE')] } }], more_rows: 0 });
    assert.equal(await guestCount(server, eventId), 1200);
    assert.equal(Number((await server.db('events').whereNotNull('importing_since').count({ n: '*' }))[0].n), 0);
  });

  it('answers 404 for an event of another organiser', async () => {
    const other = await createGroup(server, { name: 'Other organiser' });
    const key = await createApiKey(server, other);
    const res = await upload(server, setup.eventId, SPREADSHEET, '', key);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: MSG.eventNotFound });
  });
});

describe('GET /events/:event_id/guests.csv', () => {
  let server: TestServer;
  let groupId: number;
  let setup: EventSetup;

  before(async () => {
    server = await TestServer.start();
    groupId = await createGroup(server);
    setup = await setUpEvent(server, groupId);
    const res = await upload(server, setup.eventId, SPREADSHEET);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const scan = await server.post(`/events/${setup.eventId}/checkins`, { barcode: 'ADA-1', scanned_at: '2026-12-01T18:30:00' });
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
  });
  after(() => server.stop());

  it('answers 200 with a CSV attachment: guest fields, check-in state, one column per question', async () => {
    const res = await download(server, setup.eventId);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename=".*-guests\.csv"$|^attachment; filename=.*-guests\.csv$/);
    const [header, ...rows] = parse(res.text, { bom: true }) as string[][];
    assert.deepEqual(header, [
      'ID', 'First name', 'Last name', 'E-mail', 'Prefix', 'Suffix', 'Phone', 'Cell phone', 'Company', 'Job title', 'Work phone', 'Blog',
      'Website', 'Barcode', 'NFC tag', 'Registration type', 'Attention', 'Notes', 'Registration type ID', 'Status', 'Checked in',
      'Checked in at', 'Created', 'Modified', 'Diet?', 'Topics', 'Allergies',
    ]);
    const ada = Object.fromEntries(header.map((h, i) => [h, rows[0][i]]));
    assert.equal(ada['First name'], 'Ada');
    assert.equal(ada['Registration type'], 'VIP');
    assert.equal(ada.Attention, 'yes');
    assert.equal(ada.Notes, 'Check ID at the door');
    assert.equal(ada.Phone, '+44 20 7946 0958', 'a phone number is no formula: no apostrophe');
    assert.equal(ada.Status, 'active');
    assert.equal(ada['Checked in'], 'yes');
    // The event's clock (Europe/Amsterdam), with its offset.
    assert.equal(ada['Checked in at'], '2026-12-01T19:30:00+01:00');
    assert.match(ada.Created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0[12]:00$/);
    assert.equal(ada.Topics, 'AI; Music');
    assert.equal(ada.Allergies, 'Likes "tea", not coffee');
    const grace = Object.fromEntries(header.map((h, i) => [h, rows[1][i]]));
    assert.equal(grace.Attention, 'no');
    assert.equal(grace['Checked in'], 'no');
    assert.equal(grace['Checked in at'], '');
  });

  it('writes with the separator asked for, and keeps formulas from running without touching phone numbers', async () => {
    const event = await setUpEvent(server, groupId);
    const csv = 'First name;Last name;E-mail;Registration type;Phone;Company;Job title\n"=HYPERLINK(""http://x"")";-2+3;;VIP;+1 (555) 010-0199;+cmd|calc;@SUM(A1)\n';
    const imported = await upload(server, event.eventId, csv);
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    const res = await fetch(`${server.baseUrl}/events/${event.eventId}/guests.csv?separator=semicolon`, { headers: { authorization: `Token ${server.adminToken}` } });
    const [header, row] = parse(await res.text(), { bom: true, delimiter: ';' }) as string[][];
    const cells = Object.fromEntries(header.map((h, i) => [h, row[i]]));
    assert.deepEqual([cells['First name'], cells['Last name'], cells['Job title'], cells.Phone, cells.Company], ["'=HYPERLINK(\"http://x\")", "'-2+3", "'@SUM(A1)", '+1 (555) 010-0199', "'+cmd|calc"]);
    const bad = await server.get(`/events/${event.eventId}/guests.csv?separator=pipe`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { separator: [MSG.csvSeparator] });
  });

  it('round-trips: the exported file imports into another event with the same guests and answers', async () => {
    const csv = (await download(server, setup.eventId)).text;
    const copy = await setUpEvent(server, groupId);
    const res = await upload(server, copy.eventId, csv);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.created, 2);
    assert.deepEqual(res.body.ignored_columns, []);
    assert.deepEqual(res.body.read_only_columns, ['ID', 'Registration type ID', 'Status', 'Checked in', 'Checked in at', 'Created', 'Modified']);
    const strip = (g: any) => ({
      ...g,
      id: undefined, event: undefined, created: undefined, modified: undefined, checked_in: undefined, checked_in_at: undefined,
      registration_type: undefined, source: undefined,
      custom_questions: g.custom_questions.map((q: any) => ({ text: q.question_text, answers: q.answer.map((a: any) => a.answer) })),
    });
    const original = (await server.get(`/events/${setup.eventId}/guests`)).body.results.map(strip);
    const imported = (await server.get(`/events/${copy.eventId}/guests`)).body.results.map(strip);
    assert.deepEqual(imported, original);
  });

  it('answers 404 for an event of another organiser', async () => {
    const other = await createGroup(server, { name: 'Nosy' });
    const key = await createApiKey(server, other);
    const res = await download(server, setup.eventId, key);
    assert.equal(res.status, 404);
  });
});
