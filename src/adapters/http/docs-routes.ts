import { createReadStream } from 'node:fs';
import type Router from '@koa/router';
import { DOCS_CSP, DOCS_HTML, DOCS_INIT_JS, scalarBundlePath } from './docs-page.js';
import type { HttpContext, HttpState, RoutedContext } from './http-context.js';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

function setPageHeaders(ctx: HttpContext, contentType: string): void {
  ctx.res.setHeader('Content-Type', contentType);
  ctx.res.setHeader('Content-Security-Policy', DOCS_CSP);
  ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
  ctx.res.setHeader('Referrer-Policy', 'no-referrer');
}

/**
 * GET /docs, the API reference page, and the two scripts it loads, all from this service: outside /v1,
 * so no key and no limit, like the document it renders. The renderer's bundle is found when the app is
 * built, so a missing install stops the start rather than the first reader.
 */
export function addDocsRoutes(router: Router<HttpState, RoutedContext>): void {
  const bundle = scalarBundlePath();
  router.get('/docs', (ctx) => {
    setPageHeaders(ctx, 'text/html; charset=utf-8');
    ctx.body = DOCS_HTML;
  });
  router.get('/docs/init.js', (ctx) => {
    setPageHeaders(ctx, JAVASCRIPT);
    ctx.body = DOCS_INIT_JS;
  });
  router.get('/docs/scalar.js', (ctx) => {
    setPageHeaders(ctx, JAVASCRIPT);
    // Four megabytes, the same until the package is upgraded: streamed from disk, cached an hour.
    ctx.res.setHeader('Cache-Control', 'public, max-age=3600');
    ctx.body = createReadStream(bundle);
  });
}
