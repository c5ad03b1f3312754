import { readFileSync } from 'node:fs';
import type Router from '@koa/router';
import { DOCS_CSP, DOCS_HTML, DOCS_INIT_JS, DOCS_PATHS, scalarBundlePath } from './docs-page.js';
import type { HttpState, RoutedContext } from './http-context.js';
import type { HttpPages } from './http-pages.js';
import { StaticAsset } from './static-asset.js';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

interface DocsAssets {
  readonly page: StaticAsset;
  readonly init: StaticAsset;
  readonly renderer: StaticAsset;
}

let assets: DocsAssets | undefined;

/**
 * The three files, read once per process (every app of a process serves the same bytes, and their
 * compressed forms are made once): the renderer's bundle is 4.3 MB, which a stream from disk per request
 * would read again each time and hold a descriptor for.
 */
function docsAssets(): DocsAssets {
  assets ??= {
    page: new StaticAsset(Buffer.from(DOCS_HTML), 'text/html; charset=utf-8'),
    init: new StaticAsset(Buffer.from(DOCS_INIT_JS), JAVASCRIPT),
    renderer: new StaticAsset(readFileSync(scalarBundlePath()), JAVASCRIPT),
  };
  return assets;
}

/**
 * GET /docs, the API reference page, and the two scripts it loads, all from this service and from
 * memory: outside /v1, so no key is needed, but limited per client address like every request without
 * one (api-guard). The renderer's bundle is read when the app is built, so a missing install stops the
 * start rather than the first reader.
 */
export function addDocsRoutes(router: Router<HttpState, RoutedContext>): void {
  const { page, init, renderer } = docsAssets();
  const routes: ReadonlyArray<readonly [string, StaticAsset, string]> = [
    ['/docs', page, 'no-cache'],
    ['/docs/init.js', init, 'no-cache'],
    // The same until the package is upgraded; then its entity tag changes with it.
    ['/docs/scalar.js', renderer, 'public, max-age=3600'],
  ];
  for (const [path, asset, cacheControl] of routes) {
    router.get(path, (ctx) => {
      ctx.res.setHeader('Content-Security-Policy', DOCS_CSP);
      ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
      ctx.res.setHeader('Referrer-Policy', 'no-referrer');
      ctx.res.setHeader('Cache-Control', cacheControl);
      return asset.send(ctx);
    });
  }
}

/** The API reference page as pages the server adds to the app (`pages` of createHttpApp). */
export const docsPages: HttpPages = { paths: DOCS_PATHS, addRoutes: addDocsRoutes };
