import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createDb, migrateLatest, type Db } from '../../db/knex';
import { deleteSync, insertSync } from '../../db/repositories/sync';
import { SyncFollower } from '../../server/sync';
import { eventually } from '../helpers/eventually';

describe('SyncFollower.forget (an unfollow)', () => {
  let dir: string;
  let db: Db;
  let hanging: http.Server;
  const asked: string[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorlist-unfollow-'));
    db = createDb(path.join(dir, 'laptop.sqlite'));
    await migrateLatest(db);
    // An upstream that takes every request and never answers.
    hanging = http.createServer((req) => asked.push(req.url ?? ''));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Waiting on the upstream would take its minimum-rate window (about 8 s) before the held
  // pull gave up by itself: the test fails long before that.
  it('cancels the event’s cycle waiting on an upstream that does not answer, and pushes nothing after', { timeout: 6_000 }, async () => {
    const now = new Date().toISOString();
    const record = (extra: Record<string, unknown>) => ({ uid: crypto.randomUUID(), created: now, modified: now, ...extra });
    const [group] = await db('groups').insert(record({ name: 'Laptop' })).returning('id');
    const [event] = await db('events').insert(record({ group_id: group.id, name: 'Gala', starts: '2026-12-01T19:00:00', ends: '2026-12-01T23:00:00', timezone: 'UTC' })).returning('id');
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/api/v1`;
    await insertSync(db, { event_id: event.id, url, remote_event_id: 9, upstream_key: 'upstream-key', push_cursor: now, pull_cursor: now });
    const follower = new SyncFollower(db, db, pino({ level: 'silent' }), 60_000).start();
    try {
      // The cycle's pull is waiting on the upstream.
      await eventually('the pull upstream', () => (asked.length > 0 ? true : undefined), 20_000, 10);
      assert.equal(asked.length, 1);
      await deleteSync(db, event.id);
      await follower.forget(event.id);
      // A push after the unfollow would follow at once; nothing marks its absence.
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(asked.length, 1, `asked upstream again: ${asked.join(', ')}`);
    } finally {
      await follower.stop();
    }
  });
});
