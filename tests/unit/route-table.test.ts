import type { Layer } from '@koa/router';
import Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { appRouter, type HttpAppDeps } from '../../src/adapters/http/create-http-app.js';
import { docsPages } from '../../src/adapters/http/docs-routes.js';
import type { HttpContext, HttpState, RoutedContext } from '../../src/adapters/http/http-context.js';
import { RouteTable } from '../../src/adapters/http/route-table.js';

type AppRouter = Router<HttpState, RoutedContext>;

/** Enough of the deps for the routes to be declared: no handler runs here. */
const deps = {
  readiness: () => true,
  pages: [docsPages],
  metrics: {
    requests: { observe: () => undefined },
    exposition: { contentType: 'text/plain', text: async () => '' },
  },
  options: {
    sunsetAt: new Date('2026-07-01T00:00:00Z'),
    servers: { production: 'https://api.example.com/v1', staging: 'https://staging.example.com/v1' },
    trustProxy: false,
  },
} as unknown as HttpAppDeps;

const router = appRouter(deps, '{}', 16_384);
const table = new RouteTable(router);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'get', 'patch'];
const PARAMS = ['7', 'changes', 'batch', '%E2%9C%93', 'a%2Fb', '%zz', '18446744073709551616', 'r-1.x~y'];

/** Paths around each template: its params filled in, a slash more, in another case, a segment more. */
function pathsNear(template: string): string[] {
  const filled = PARAMS.map((param) => template.replace(/:[A-Za-z_$][\w$]*/g, param));
  return [...new Set(filled.flatMap((path) => [path, `${path}/`, path.toUpperCase(), `${path}/x`, path.slice(0, -1)]))];
}

const templates = [...new Set(router.stack.map((layer) => String(layer.path)))];
const paths = [
  ...new Set([...templates.flatMap(pathsNear), '/', '', '/v1', '/v1/', '/nothing', '/v1/inventory//changes', '*']),
];

/** What the metrics and the trace labelled a request with before: @koa/router's match, read this way. */
function labelFromMatch(r: AppRouter, method: string, path: string): string | undefined {
  const match = r.match(path, method);
  const layer = match.pathAndMethod.find((l) => l.methods.length > 0) ?? match.path.find((l) => l.methods.length > 0);
  return typeof layer?.path === 'string' ? layer.path : undefined;
}

describe('the route table answers as @koa/router matches', () => {
  it('compiles routes to compare: every template of the app, with its params', () => {
    expect(templates).toContain('/v1/inventory/:petId');
    expect(templates).toContain('/metrics');
    expect(paths.length).toBeGreaterThan(200);
  });

  it('says a route serves a method at a path exactly when router.match finds one', () => {
    for (const path of paths) {
      for (const method of METHODS) {
        expect([method, path, table.isOperation(method, path)]).toEqual([
          method,
          path,
          router.match(path, method).route,
        ]);
      }
    }
  });

  it('names the template router.match finds first, for the method or else for the path (405)', () => {
    for (const path of paths) {
      for (const method of METHODS) {
        expect([method, path, table.templateOf(method, path)]).toEqual([
          method,
          path,
          labelFromMatch(router, method, path),
        ]);
      }
    }
  });
});

/** One handler run, as it saw the context. */
interface Run {
  readonly layer: number;
  readonly params: unknown;
  readonly route: unknown;
}

/** A fresh context, with what dispatch reads (and the request @koa/router writes params on). */
const contextFor = (method: string, path: string): HttpContext =>
  ({ method, path, request: {}, state: {} }) as unknown as HttpContext;

/**
 * The app's routes again, on a router of their own, each handler recording what it saw and calling next
 * when `passOn` says so; dispatched by @koa/router and by the table, for the same request.
 */
function dispatchBoth(method: string, path: string, passOn: (layer: number) => boolean) {
  const recorder = new Router<HttpState, RoutedContext>({ sensitive: true, strict: true });
  const runs: Run[] = [];
  router.stack.forEach((layer: Layer<HttpState, RoutedContext>, index) => {
    for (const verb of layer.methods.filter((m) => m !== 'HEAD' || !layer.methods.includes('GET'))) {
      recorder.register(
        layer.path,
        [verb],
        [
          (ctx, next) => {
            runs.push({ layer: index, params: { ...ctx.params }, route: ctx._matchedRoute });
            return passOn(index) ? next() : undefined;
          },
        ],
      );
    }
  });
  const outcome = async (run: (ctx: HttpContext, next: () => Promise<void>) => unknown) => {
    runs.length = 0;
    const ctx = contextFor(method, path);
    let passedOn = false;
    await run(ctx, async () => {
      passedOn = true;
    });
    return {
      runs: [...runs],
      passedOn,
      route: ctx._matchedRoute,
      params: (ctx as unknown as { params?: unknown }).params,
      matched: (ctx.matched ?? []).map((l) => [l.path, [...l.methods]]),
    };
  };
  const routes = new RouteTable(recorder);
  return Promise.all([
    outcome((ctx, next) => recorder.routes()(ctx as never, next)),
    outcome((ctx, next) => routes.dispatch(ctx, next)),
  ]);
}

describe('the route table dispatches as @koa/router does', () => {
  it('runs the same handlers with the same params, route and matched layers, or passes on the same', async () => {
    for (const path of paths) {
      for (const method of METHODS) {
        const [byRouter, byTable] = await dispatchBoth(method, path, () => false);
        expect([method, path, byTable]).toEqual([method, path, byRouter]);
      }
    }
  });

  it('runs every layer of the path and method in order while each calls next, then what follows', async () => {
    const [byRouter, byTable] = await dispatchBoth('GET', '/v1/inventory/changes', () => true);
    expect(byTable).toEqual(byRouter);
    expect(byTable.runs.map((run) => run.route)).toEqual(['/v1/inventory/changes', '/v1/inventory/:petId']);
    expect(byTable.runs.map((run) => run.params)).toEqual([{}, { petId: 'changes' }]);
    expect(byTable.passedOn).toBe(true);
  });

  it('ends the chain at the first handler that does not call next', async () => {
    const [byRouter, byTable] = await dispatchBoth('HEAD', '/v1/inventory/changes', () => false);
    expect(byTable).toEqual(byRouter);
    expect(byTable.runs).toEqual([{ layer: expect.any(Number), params: {}, route: '/v1/inventory/changes' }]);
    expect(byTable.route).toBe('/v1/inventory/changes');
  });

  it('decodes params as @koa/router does, and leaves a broken escape as sent', async () => {
    for (const [param, decoded] of [
      ['%E2%9C%93', '✓'],
      ['a%2Fb', 'a/b'],
      ['%zz', '%zz'],
    ]) {
      const [byRouter, byTable] = await dispatchBoth('PATCH', `/v1/inventory/${param}`, () => false);
      expect(byTable).toEqual(byRouter);
      expect(byTable.params).toEqual({ petId: decoded });
    }
  });

  it('leaves the layers of a path served under other methods in ctx.matched, for the 405', async () => {
    const [byRouter, byTable] = await dispatchBoth('DELETE', '/v1/inventory/7', () => false);
    expect(byTable).toEqual(byRouter);
    expect(byTable.passedOn).toBe(true);
    expect(byTable.matched).toEqual([
      ['/v1/inventory/:petId', ['HEAD', 'GET']],
      ['/v1/inventory/:petId', ['PATCH']],
    ]);
  });
});

describe('routes of other shapes (a param beside a literal, a wildcard, a RegExp) answer alike', () => {
  const shapes = new Router<HttpState, RoutedContext>({ sensitive: true, strict: true });
  shapes.get('/files/:name.:ext', () => undefined);
  shapes.get('/a/:x/b/:y', () => undefined);
  shapes.get('/any/*rest', () => undefined);
  shapes.get(/^\/re\/(\d+)$/, () => undefined);
  shapes.post('/a/:x/b/:y', () => undefined);
  const shapeTable = new RouteTable(shapes);

  it.each([
    ['GET', '/files/report.pdf'],
    ['GET', '/a/1/b/%41'],
    ['POST', '/a/1/b/2'],
    ['GET', '/any/thing/else'],
    ['GET', '/re/42'],
    ['GET', '/re/x'],
  ])('%s %s', async (method, path) => {
    expect(shapeTable.isOperation(method, path)).toBe(shapes.match(path, method).route);
    expect(shapeTable.templateOf(method, path)).toBe(labelFromMatch(shapes, method, path));
    const byRouter = contextFor(method, path);
    const byTable = contextFor(method, path);
    await shapes.routes()(byRouter as never, async () => undefined);
    await shapeTable.dispatch(byTable, async () => undefined);
    const paramsOf = (ctx: HttpContext): unknown => (ctx as unknown as { params?: unknown }).params;
    expect(paramsOf(byTable)).toEqual(paramsOf(byRouter));
    expect(byTable._matchedRoute).toEqual(byRouter._matchedRoute);
    expect(byTable.matched).toEqual(byRouter.matched);
  });
});
