import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { defaultDataDir, loadConfig } from '../../server/config';

describe('loadConfig', () => {
  it('defaults to loopback, port 8787 and a per-user database', () => {
    const config = loadConfig({}, []);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8787);
    assert.equal(config.httpsPort, 8788);
    assert.equal(config.db, path.join(defaultDataDir(), 'doorlist.sqlite'));
    assert.ok(Object.isFrozen(config));
  });

  it('reads DOORLIST_* variables', () => {
    const config = loadConfig({ DOORLIST_DB: '/tmp/x.sqlite', DOORLIST_HOST: '0.0.0.0', DOORLIST_PORT: '0', DOORLIST_ADMIN_USERNAME: 'boss', DOORLIST_ADMIN_PASSWORD: 'pw' }, []);
    assert.deepEqual([config.db, config.host, config.port, config.adminUsername, config.adminPassword], ['/tmp/x.sqlite', '0.0.0.0', 0, 'boss', 'pw']);
  });

  it('lets --db, --host and --port win over the environment', () => {
    const config = loadConfig({ DOORLIST_PORT: '1234', DOORLIST_HOST: '10.0.0.1' }, ['--db', '/tmp/flag.sqlite', '--host=0.0.0.0', '--port', '9000']);
    assert.deepEqual([config.db, config.host, config.port], ['/tmp/flag.sqlite', '0.0.0.0', 9000]);
  });

  it('refuses a port that is not a port', () => {
    assert.throws(() => loadConfig({ DOORLIST_PORT: 'eighty' }, []), /Invalid Doorlist configuration: port/);
    assert.throws(() => loadConfig({}, ['--port', '70000']), /port/);
  });
});

describe('loadConfig DOORLIST_DB', () => {
  it('refuses a URL of any scheme but PostgreSQL, in one line, instead of taking it for a folder name', () => {
    for (const url of ['mysql://user:pw@host/db', 'file:///tmp/x.sqlite', 'HTTP://example.test/db', 'sqlite://doorlist.sqlite']) {
      const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
      assert.throws(
        () => loadConfig({ DOORLIST_DB: url }, []),
        (err: Error) => err.message === `Invalid Doorlist configuration: db: ${scheme}:// is not a database Doorlist can use; give the path of a SQLite file or a postgres:// URL`,
        url,
      );
    }
    assert.throws(() => loadConfig({}, ['--db', 'redis://localhost']), /db: redis:\/\/ is not a database/);
  });

  it('takes postgres:// and postgresql:// URLs as the central PostgreSQL database', () => {
    for (const url of ['postgres://door:pw@db.local:5432/doorlist', 'postgresql://localhost/doorlist']) {
      assert.equal(loadConfig({ DOORLIST_DB: url }, []).db, url);
    }
  });

  it('takes file paths, relative, absolute and with a drive letter, as SQLite files', () => {
    for (const file of ['doorlist.sqlite', '/var/lib/doorlist/db.sqlite', 'C:\\Doorlist\\doorlist.sqlite', 'folder:with-colon/db.sqlite']) {
      assert.equal(loadConfig({ DOORLIST_DB: file }, []).db, file);
    }
  });
});

describe('loadConfig DOORLIST_TRUST_PROXY', () => {
  it('is off unless set: a forwarded-for header then names nobody', () => {
    assert.equal(loadConfig({}, []).trustProxy, undefined);
    assert.equal(loadConfig({ DOORLIST_TRUST_PROXY: '' }, []).trustProxy, undefined);
  });

  it('takes proxies by address, CIDR range or loopback', () => {
    assert.equal(loadConfig({ DOORLIST_TRUST_PROXY: 'loopback' }, []).trustProxy, 'loopback');
    assert.equal(loadConfig({ DOORLIST_TRUST_PROXY: ' loopback, 10.0.0.0/8 ,fd00::1' }, []).trustProxy, 'loopback,10.0.0.0/8,fd00::1');
  });

  it('refuses a number of hops, saying why: a client reaching the port directly would pick its own address', () => {
    for (const value of ['1', '2', '0', '11']) {
      assert.throws(() => loadConfig({ DOORLIST_TRUST_PROXY: value }, []), /Invalid Doorlist configuration: trustProxy: a number of proxy hops lets a client that reaches this port directly choose its own address/, value);
    }
  });

  it('refuses "every peer" and anything that is not an address, in one line', () => {
    for (const value of ['true', 'everyone', '10.0.0.0/33', '10.0.0.1/8/2', 'loopback,nonsense']) {
      assert.throws(() => loadConfig({ DOORLIST_TRUST_PROXY: value }, []), /Invalid Doorlist configuration: trustProxy: give the proxies' addresses/, value);
    }
  });
});
