import type Router from '@koa/router';
import { CONSOLE_CSP, CONSOLE_HTML, CONSOLE_PATHS, type ConsoleBundle } from './console-page.js';
import type { HttpState, RoutedContext } from './http-context.js';
import type { HttpPages } from './http-pages.js';
import { StaticAsset } from './static-asset.js';

/**
 * GET /console, the stock console, with its script and sheet, from memory and compressed as /docs is
 * (StaticAsset): outside /v1, so loading it needs no key, but limited per client address like every
 * request without one (api-guard). The page then calls the API with the key the person signs in with.
 * Every file is revalidated (no-cache): a new release's bundle is seen at once, and an unchanged one
 * costs a 304.
 */
export function addConsoleRoutes(router: Router<HttpState, RoutedContext>, bundle: ConsoleBundle): void {
  const routes: ReadonlyArray<readonly [string, StaticAsset]> = [
    ['/console', new StaticAsset(Buffer.from(CONSOLE_HTML), 'text/html; charset=utf-8')],
    ['/console/console.js', new StaticAsset(bundle.script, 'text/javascript; charset=utf-8')],
    ['/console/console.css', new StaticAsset(bundle.style, 'text/css; charset=utf-8')],
  ];
  for (const [path, asset] of routes) {
    router.get(path, (ctx) => {
      ctx.res.setHeader('Content-Security-Policy', CONSOLE_CSP);
      ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
      ctx.res.setHeader('Referrer-Policy', 'no-referrer');
      ctx.res.setHeader('Cache-Control', 'no-cache');
      return asset.send(ctx);
    });
  }
}

/** The stock console as pages the server adds to the app (`pages` of createHttpApp), over its bundle. */
export function consolePages(bundle: ConsoleBundle): HttpPages {
  return { paths: CONSOLE_PATHS, addRoutes: (router) => addConsoleRoutes(router, bundle) };
}
