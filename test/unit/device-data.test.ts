import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachesToWipe, eventOfKey, metaKeysToWipe, STATION_SETTINGS, storageKeysToWipe } from '../../renderer/src/device-data';

const KEYS = [
  'doorlist.token',
  'doorlist.tokenKind',
  'doorlist.event',
  'doorlist.language',
  'doorlist.sound',
  'doorlist.station',
  'doorlist.nfcFallback',
  'doorlist.kioskPin',
  'doorlist.badges',
  'doorlist.log.3',
  'doorlist.types.3',
  'doorlist.sessions.3',
  'doorlist.session.3',
  'doorlist.timezone.3',
  'doorlist.counts.3',
  'doorlist.log.12',
  'doorlist.counts.12',
  'doorlist.csvSeparator.12',
  'doorlist.offline',
  'something.else',
];

describe('what a sign-out, a 401 and a change of event wipe from the browser', () => {
  it('reads the event of a per-event key, and none from the others', () => {
    const table: [string, number | undefined][] = [
      ['doorlist.log.3', 3],
      ['doorlist.counts.12', 12],
      ['doorlist.csvSeparator.7', 7],
      ['doorlist.event', undefined],
      ['doorlist.log.', undefined],
      ['doorlist.log.3.x', undefined],
      ['other.log.3', undefined],
    ];
    for (const [key, event] of table) assert.equal(eventOfKey(key), event, key);
  });

  it('signed out: every key goes but the station\'s own settings, unknown keys included', () => {
    const left = KEYS.filter((key) => !storageKeysToWipe(KEYS, { signedOut: true, keepEventPointer: false }).includes(key));
    assert.deepEqual(left.sort(), [...STATION_SETTINGS].sort());
  });

  it('after a 401: the event pointer stays too, so the next sign-in returns to the event and hands its scans over', () => {
    const left = KEYS.filter((key) => !storageKeysToWipe(KEYS, { signedOut: true, keepEventPointer: true }).includes(key));
    assert.deepEqual(left.sort(), [...STATION_SETTINGS, 'doorlist.event'].sort());
  });

  it('changing event: only the other events\' keys go', () => {
    assert.deepEqual(storageKeysToWipe(KEYS, { signedOut: false, eventId: 12 }), ['doorlist.log.3', 'doorlist.types.3', 'doorlist.sessions.3', 'doorlist.session.3', 'doorlist.timezone.3', 'doorlist.counts.3']);
    assert.deepEqual(storageKeysToWipe(KEYS, { signedOut: false, eventId: 3 }), ['doorlist.log.12', 'doorlist.counts.12', 'doorlist.csvSeparator.12']);
  });

  it('the guest copy\'s bookkeeping: all of it signed out, the other events\' on a change', () => {
    const meta = ['guests:3', 'guests:12', 'guests:120'];
    assert.deepEqual(metaKeysToWipe(meta, { signedOut: true, keepEventPointer: true }), meta);
    assert.deepEqual(metaKeysToWipe(meta, { signedOut: false, eventId: 12 }), ['guests:3', 'guests:120']);
  });

  it('Cache Storage: everything but the app shell\'s precache', () => {
    assert.deepEqual(cachesToWipe(['workbox-precache-v2-https://door.lan/', 'api-answers', 'workbox-runtime']), ['api-answers', 'workbox-runtime']);
  });
});
