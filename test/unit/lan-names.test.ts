import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLanAddress, lanOnly, refusedName } from '../../server/lan-certificates';
import { MSG } from '../../core/messages';

describe('isLanAddress', () => {
  const table: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['10.0.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['172.15.0.1', false],
    ['192.168.0.10', true],
    ['192.169.0.10', false],
    ['169.254.3.4', true],
    ['8.8.8.8', false],
    ['192.0.2.2', false],
    ['::1', true],
    ['fd12:3456::1', true],
    ['fe80::1', true],
    ['::ffff:192.168.1.1', true],
    ['::ffff:8.8.8.8', false],
    ['2001:db8::1', false],
    ['side-door', false],
  ];
  for (const [ip, lan] of table) it(`${ip} -> ${lan}`, () => assert.equal(isLanAddress(ip), lan));
});

describe('refusedName', () => {
  const table: [{ ips: string[]; dns: string[]; other?: number }, string | null][] = [
    [{ ips: ['10.0.0.2'], dns: ['localhost', 'side-door', 'side-door.local'] }, null],
    [{ ips: ['10.0.0.2'], dns: ['side-door.example.com'] }, MSG.certificateRequestNotLan('side-door.example.com')],
    [{ ips: ['10.0.0.2'], dns: ['*.local'] }, MSG.certificateRequestNotLan('*.local')],
    [{ ips: ['10.0.0.2', '1.1.1.1'], dns: [] }, MSG.certificateRequestNotLan('1.1.1.1')],
    [{ ips: [], dns: [] }, MSG.certificateRequestNoNames],
    [{ ips: ['10.0.0.2'], dns: [], other: 1 }, MSG.certificateRequestNameKind],
    [{ ips: Array.from({ length: 33 }, (_, i) => `10.0.1.${i}`), dns: [] }, MSG.certificateRequestTooManyNames(32)],
  ];
  for (const [names, refusal] of table) it(`${JSON.stringify(names).slice(0, 70)} -> ${refusal}`, () => assert.equal(refusedName({ other: 0, ...names }), refusal));
});

describe('lanOnly', () => {
  it('keeps the LAN addresses and host names a follower may have signed, in order', () => {
    assert.deepEqual(lanOnly({ ips: ['127.0.0.1', '192.0.2.2', '10.1.2.3'], dns: ['localhost', 'vm', 'vm.local', 'vm.corp.example'] }), { ips: ['127.0.0.1', '10.1.2.3'], dns: ['localhost', 'vm', 'vm.local'] });
  });
});
