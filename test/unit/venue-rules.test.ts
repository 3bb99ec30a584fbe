import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isVenueUrl, outranks } from '../../core/venue';

describe('isVenueUrl: a venue laptop is https to a LAN or loopback address written out, at /api/v1', () => {
  it('takes private, link-local and loopback addresses', () => {
    for (const url of [
      'https://10.0.0.2:8788/api/v1',
      'https://172.16.4.1:8788/api/v1',
      'https://172.31.255.254:8788/api/v1/',
      'https://192.168.1.20:8788/api/v1',
      'https://169.254.3.3:8788/api/v1',
      'https://127.0.0.1:8788/api/v1',
      'https://[::1]:8788/api/v1',
      'https://[fd12:3456::1]:8788/api/v1',
      'https://[fe80::1]:8788/api/v1',
    ]) {
      assert.equal(isVenueUrl(url), true, url);
    }
  });

  it('refuses public addresses, host names, plain HTTP, credentials, another path, a query', () => {
    for (const url of [
      'https://8.8.8.8:8788/api/v1',
      'https://172.32.0.1:8788/api/v1',
      'https://192.169.0.1:8788/api/v1',
      'https://[2001:db8::1]:8788/api/v1',
      'https://door.local:8788/api/v1',
      'https://127.0.0.1.evil.example:8788/api/v1',
      'http://10.0.0.2:8787/api/v1',
      'https://user:pass@10.0.0.2:8788/api/v1',
      'https://10.0.0.2:8788/api/v2',
      'https://10.0.0.2:8788/api/v1?x=1',
      'not a url',
    ]) {
      assert.equal(isVenueUrl(url), false, url);
    }
  });
});

describe('outranks: which of two laptops stays the venue upstream, alike on every laptop', () => {
  const claim = (epoch: number, fingerprint: string, url = 'https://10.0.0.2:8788/api/v1') => ({ epoch, fingerprint, url });

  it('the higher epoch first, whatever the fingerprints', () => {
    assert.equal(outranks(claim(3, 'ff'), claim(2, '00')), true);
    assert.equal(outranks(claim(2, '00'), claim(3, 'ff')), false);
  });

  it('at the same epoch the lower fingerprint, then the lower address; never both ways', () => {
    assert.equal(outranks(claim(2, 'aa'), claim(2, 'bb')), true);
    assert.equal(outranks(claim(2, 'bb'), claim(2, 'aa')), false);
    const [b, c] = [claim(2, 'aa', 'https://10.0.0.3:8788/api/v1'), claim(2, 'aa', 'https://10.0.0.4:8788/api/v1')];
    assert.deepEqual([outranks(b, c), outranks(c, b)], [true, false]);
    assert.equal(outranks(b, b), false);
  });
});
