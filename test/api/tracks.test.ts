import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MSG } from '../../core/messages';
import { createEvent, createGroup, twoOrganisers } from '../helpers/fixtures';
import { TestServer } from '../helpers/server';

const TRACK = { name: 'Main stage', starts: '2026-12-01T18:00', ends: '2026-12-01T23:00' };

describe('session tracks', () => {
  let server: TestServer;
  let eventId: number;
  before(async () => {
    server = await TestServer.start();
    eventId = await createEvent(server, await createGroup(server));
  });
  after(() => server.stop());

  async function createTrack(event: number, fields: Record<string, unknown> = {}): Promise<number> {
    const res = await server.post(`/events/${event}/sessions/tracks`, { ...TRACK, ...fields });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id;
  }

  describe('POST /events/:event_id/sessions/tracks', () => {
    it('answers 200 {id} (not 201) and the track reads back with seconds added', async () => {
      const res = await server.post(`/events/${eventId}/sessions/tracks`, TRACK);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['id']);
      const detail = await server.get(`/events/${eventId}/sessions/tracks/${res.body.id}`);
      assert.equal(detail.status, 200);
      const { created, modified, ...rest } = detail.body;
      assert.deepEqual(rest, { id: res.body.id, name: 'Main stage', event_id: eventId, starts: '2026-12-01T18:00:00', ends: '2026-12-01T23:00:00' });
      assert.match(created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.match(modified, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    });

    it('answers 400 "This field is required." for name, starts and ends', async () => {
      const res = await server.post(`/events/${eventId}/sessions/tracks`, {});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { name: [MSG.required], starts: [MSG.required], ends: [MSG.required] });
    });

    it('answers 400 under starts when the track starts after it ends; equal times are fine', async () => {
      const res = await server.post(`/events/${eventId}/sessions/tracks`, { ...TRACK, starts: '2026-12-02T00:00' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { starts: [MSG.trackDatesOrder] });
      assert.equal(MSG.trackDatesOrder, 'Track start date cannot be later than end date.');
      await createTrack(eventId, { starts: '2026-12-01T18:00', ends: '2026-12-01T18:00' });
    });

    it('answers 400 for a blank name or a datetime in the wrong format', async () => {
      const res = await server.post(`/events/${eventId}/sessions/tracks`, { ...TRACK, name: '  ', ends: '2026-12-01 23:00' });
      assert.deepEqual(res.body, { name: [MSG.blank], ends: [MSG.datetimeFormat] });
    });

    it('answers 404 for an unknown event', async () => {
      const res = await server.post('/events/999999/sessions/tracks', TRACK);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: MSG.eventNotFound });
    });
  });

  describe('GET /events/:event_id/sessions/tracks', () => {
    it('lists the tracks of the event in the envelope; "tracks" is never taken for a session id', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'Tracks only' }));
      const first = await createTrack(event, { name: 'Hall A' });
      const second = await createTrack(event, { name: 'Hall B' });
      for (const path of [`/events/${event}/sessions/tracks`, `/events/${event}/sessions/tracks/`]) {
        const res = await server.get(path);
        assert.equal(res.status, 200, path);
        assert.equal(res.body.count, 2);
        assert.equal(res.body.next, null);
        assert.equal(res.body.previous, null);
        assert.deepEqual(res.body.results.map((t: { id: number }) => t.id), [first, second]);
        assert.deepEqual(Object.keys(res.body.results[0]).sort(), ['created', 'ends', 'event_id', 'id', 'modified', 'name', 'starts']);
      }
    });

    it('pages with page and page_size and filters with timestamp', async () => {
      const event = await createEvent(server, await createGroup(server, { name: 'Paged tracks' }));
      for (const name of ['1', '2', '3']) await createTrack(event, { name });
      const page2 = await server.get(`/events/${event}/sessions/tracks?page=2&page_size=2`);
      assert.equal(page2.body.count, 3);
      assert.deepEqual(page2.body.results.map((t: { name: string }) => t.name), ['3']);
      assert.equal(page2.body.next, null);
      assert.match(page2.body.previous, /page_size=2/);
      const future = Math.floor(Date.now() / 1000) + 3600;
      assert.equal((await server.get(`/events/${event}/sessions/tracks?timestamp=${future}`)).body.count, 0);
    });
  });

  describe('PUT /events/:event_id/sessions/tracks/:track_id', () => {
    it('updates the given fields and answers 200 {id}', async () => {
      const id = await createTrack(eventId);
      const res = await server.put(`/events/${eventId}/sessions/tracks/${id}`, { name: 'Side stage', ends: '2026-12-02T01:00' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id });
      const detail = await server.get(`/events/${eventId}/sessions/tracks/${id}`);
      assert.equal(detail.body.name, 'Side stage');
      assert.equal(detail.body.starts, '2026-12-01T18:00:00');
      assert.equal(detail.body.ends, '2026-12-02T01:00:00');
    });

    it('answers 400 under starts when the new start is after the stored end', async () => {
      const id = await createTrack(eventId);
      const res = await server.put(`/events/${eventId}/sessions/tracks/${id}`, { starts: '2026-12-01T23:30' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { starts: [MSG.trackDatesOrder] });
    });
  });

  describe('DELETE /events/:event_id/sessions/tracks/:track_id', () => {
    it('answers 204 with no body; the track is gone and its sessions stay without a track', async () => {
      const id = await createTrack(eventId);
      const session = await server.post(`/events/${eventId}/sessions`, { name: 'In track', starts: '2026-12-01T18:00', ends: '2026-12-01T19:00', track_id: id });
      assert.equal(session.status, 200);
      const res = await server.delete(`/events/${eventId}/sessions/tracks/${id}`);
      assert.equal(res.status, 204);
      assert.equal(res.body, '');
      assert.deepEqual((await server.get(`/events/${eventId}/sessions/tracks/${id}`)).body, { detail: MSG.trackNotFound });
      const detail = await server.get(`/events/${eventId}/sessions/${session.body.id}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.body.track_id, null);
      assert.equal((await server.delete(`/events/${eventId}/sessions/tracks/${id}`)).status, 404);
    });
  });

  describe('scope', () => {
    it("answers 404 to another organiser's key on every track route", async () => {
      const { a, b } = await twoOrganisers(server);
      const id = await createTrack(a.eventId);
      const opts = { token: b.key };
      assert.deepEqual((await server.post(`/events/${a.eventId}/sessions/tracks`, TRACK, opts)).body, { detail: MSG.eventNotFound });
      assert.equal((await server.get(`/events/${a.eventId}/sessions/tracks`, opts)).status, 404);
      assert.equal((await server.get(`/events/${a.eventId}/sessions/tracks/${id}`, opts)).status, 404);
      assert.equal((await server.put(`/events/${a.eventId}/sessions/tracks/${id}`, { name: 'Stolen' }, opts)).status, 404);
      assert.equal((await server.delete(`/events/${a.eventId}/sessions/tracks/${id}`, opts)).status, 404);
      // Through B's own event the track of A is absent too.
      assert.deepEqual((await server.get(`/events/${b.eventId}/sessions/tracks/${id}`, opts)).body, { detail: MSG.trackNotFound });
      const own = await server.get(`/events/${a.eventId}/sessions/tracks/${id}`, { token: a.key });
      assert.equal(own.body.name, 'Main stage');
    });
  });
});
