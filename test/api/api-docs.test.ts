import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestServer } from '../helpers/server';

/** The API reference: GET /api/v1/docs (offline, whole) and GET /api/v1/openapi.json. */

describe('GET /api/v1/docs: the API reference, served offline', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(async () => {
    await server.stop();
  });

  it('answers a page without a token whose every script and stylesheet this server serves', async () => {
    const page = await server.request<string>('GET', '/docs', { token: null });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(assets.sort(), ['/api/v1/docs/favicon-32x32.png', '/api/v1/docs/init.js', '/api/v1/docs/swagger-ui-bundle.js', '/api/v1/docs/swagger-ui.css']);
    const types: Record<string, RegExp> = { '.js': /javascript/, '.css': /text\/css/, '.png': /image\/png/ };
    for (const asset of assets) {
      const res = await fetch(server.running.url + asset);
      assert.equal(res.status, 200, asset);
      assert.match(res.headers.get('content-type') ?? '', types[asset.slice(asset.lastIndexOf('.'))], asset);
      assert.ok((await res.arrayBuffer()).byteLength > 0, asset);
    }
  });

  it('points the renderer at this server\'s /openapi.json, with no online validator', async () => {
    const init = await server.request<string>('GET', '/docs/init.js', { token: null });
    assert.equal(init.status, 200);
    assert.match(init.body, /url: "\/api\/v1\/openapi\.json"/);
    assert.match(init.body, /validatorUrl: 'none'/);
    assert.equal((await server.request('GET', '/openapi.json', { token: null })).status, 200);
  });

  it('lets the page load nothing from elsewhere (Content-Security-Policy) and never be framed', async () => {
    for (const pathName of ['/docs', '/docs/swagger-ui-bundle.js']) {
      const csp = (await server.request('GET', pathName, { token: null })).headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'self'/, pathName);
      assert.match(csp, /script-src 'self'(;|$)/, pathName);
      assert.match(csp, /connect-src 'self'/, pathName);
      assert.match(csp, /frame-ancestors 'none'/, pathName);
    }
  });

  it('serves only the files the page needs, not the package\'s demo page', async () => {
    for (const pathName of ['/docs/index.html', '/docs/swagger-initializer.js', '/docs/swagger-ui-bundle.js.map']) {
      const res = await server.request('GET', pathName, { token: null });
      assert.equal(res.status, 404, pathName);
    }
  });
});

describe('GET /api/v1/openapi.json', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.stop());

  it('describes the API with paths under /api/v1', async () => {
    const res = await server.get('/openapi.json', { token: null });
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.0.3');
    assert.ok(res.body.paths['/events/{event_id}/duplicate_event'].post);
  });
});
