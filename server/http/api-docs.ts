import path from 'node:path';
import { Router } from 'express';

/** The reference's own address under the API prefix, and the document it reads. */
export const DOCS_PATH = '/docs';
const DOCUMENT_URL = '/api/v1/openapi.json';
const ASSETS = '/api/v1/docs';

/** Swagger UI's files the page needs: the rest of the package (its demo page, source maps) is not served. */
const FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

/**
 * Only this server: a venue laptop has no internet, so nothing may come from elsewhere, and the
 * "try it out" calls go to this API alone. Swagger UI sets inline styles and draws icons as data: images.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Doorlist API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="${ASSETS}/favicon-32x32.png">
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS}/swagger-ui-bundle.js"></script>
<script src="${ASSETS}/init.js"></script>
</body>
</html>
`;

// validatorUrl 'none': Swagger UI would otherwise send the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(DOCUMENT_URL)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: 'none',
  persistAuthorization: false,
});
`;

/**
 * The API reference for people at GET /api/v1/docs: Swagger UI (swagger-ui-dist, installed with
 * Doorlist, never a CDN) reading /api/v1/openapi.json, so it works offline and shows exactly
 * what the routes declare. Public, like the document it renders.
 */
export function apiDocsRouter(): Router {
  const router = Router();
  // The package's folder, found as Node finds it; its main module would load the whole bundle into the server.
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.use(DOCS_PATH, (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CSP);
    next();
  });
  router.get(DOCS_PATH, (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('js').send(INIT);
  });
  for (const file of FILES) {
    router.get(`${DOCS_PATH}/${file}`, (_req, res, next) => {
      res.sendFile(path.join(dir, file), (err) => err && next(err));
    });
  }
  return router;
}
