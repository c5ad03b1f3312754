import type Router from '@koa/router';
import type { Layer } from '@koa/router';
import type { Next } from 'koa';
import {
  type HttpContext,
  type HttpMiddleware,
  type HttpState,
  isKeepingHeldHeaders,
  type RoutedContext,
  releaseHeldHeaders,
} from './http-context.js';

type AppRouter = Router<HttpState, RoutedContext>;
type AppLayer = Layer<HttpState, RoutedContext>;
type Params = Record<string, string>;

/** What dispatch writes on the context: what the handlers, the access log and the 405 read. */
interface RoutingContext {
  params?: Params;
  _matchedRoute?: string | RegExp;
  _matchedRouteName?: string;
  matched?: readonly AppLayer[];
  [ROUTED_PATH]?: string;
}

/** The path a chain of several layers was matched on, for the params of the layers after the first. */
const ROUTED_PATH = Symbol('routed path');

/** What a path no layer matches leaves in ctx.matched: nothing, shared by every such request. */
const NONE: readonly AppLayer[] = Object.freeze([]);

/** As @koa/router decodes a param: left as sent when it is no valid percent-encoding. */
function safeDecode(text: string): string {
  // Most params carry no escape: decoding would only copy them.
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Sets a layer's params, from the path as @koa/router does (Layer.params: a copy of the params so far,
 * each non-empty capture decoded), and its template as the matched route.
 */
type EnterLayer = (ctx: RoutingContext, path: string) => void;

// A template made of whole segments, each a literal or one `:name` param: its captures end at the next
// slash, so they can be cut out of a path the regexp matched without running it again.
const SEGMENTED_TEMPLATE = /^(?:\/(?:[\w.~-]*|:[A-Za-z_$][\w$]*))+$/;

function enterLayer(layer: AppLayer): EnterLayer {
  const template = layer.path;
  const name = layer.name;
  const names = layer.paramNames.map((key) => key.name);
  const segmented =
    typeof template === 'string' &&
    layer.opts.ignoreCaptures !== true &&
    SEGMENTED_TEMPLATE.test(template) &&
    layer.paramNames.every((key) => key.type === 'param');
  if (!segmented) {
    // Any other shape (a RegExp path, a wildcard, two params in one segment): @koa/router's own code.
    return (ctx, path) => {
      ctx.params = layer.params(path, layer.captures(path), ctx.params) as Params;
      ctx._matchedRoute = template;
      if (name) ctx._matchedRouteName = name;
    };
  }
  // The literal between two params (or before the first) is skipped by its length.
  const literals = template.split(/:[A-Za-z_$][\w$]*/).map((literal) => literal.length);
  if (literals.length !== names.length + 1) throw new Error(`the params of ${template} could not be placed`);
  return (ctx, path) => {
    const params: Params = { ...ctx.params };
    let at = 0;
    for (let i = 0; i < names.length; i++) {
      at += literals[i] as number;
      const slash = path.indexOf('/', at);
      const end = slash === -1 ? path.length : slash;
      if (end > at) params[names[i] as string] = safeDecode(path.slice(at, end));
      at = end;
    }
    ctx.params = params;
    ctx._matchedRoute = template;
    if (name) ctx._matchedRouteName = name;
  };
}

/**
 * koa-compose's composition (the package is no dependency of this one): each middleware gets a `next`
 * that runs the following one, called at most once. A chain of one middleware is that middleware: the
 * app's own `next` already refuses a second call.
 */
function compose(middleware: readonly HttpMiddleware[]): HttpMiddleware {
  const [only] = middleware;
  if (middleware.length === 1 && only !== undefined) return only;
  return (ctx, next) => {
    let index = -1;
    return dispatch(0);
    // A function declaration, as koa-compose's: an arrow held in a const allocated four times as much a
    // request (1.7 KB against 0.4 for three middleware).
    function dispatch(i: number): Promise<unknown> {
      if (i <= index) return Promise.reject(new Error('next() called multiple times'));
      index = i;
      const fn = i === middleware.length ? next : middleware[i];
      if (fn === undefined) return Promise.resolve();
      try {
        return Promise.resolve(fn(ctx, dispatch.bind(null, i + 1) as Next));
      } catch (err) {
        return Promise.reject(err);
      }
    }
  };
}

/** The layers of one path and method, ready to run: what @koa/router composes for every request. */
interface RouteChain {
  readonly enterFirst: EnterLayer;
  readonly run: HttpMiddleware;
  /** Whether layers after the first run too (when the ones before call next): they need the path. */
  readonly chained: boolean;
  /** The template of its first route, for the metrics and the trace of a request that never ran it. */
  readonly template: string | undefined;
}

/** What a path matches: its layers under any method, and their chain for each method they serve. */
interface PathEntry {
  /** ctx.matched: every layer whose path matches, in registration order, whatever its methods. */
  readonly matched: readonly AppLayer[];
  readonly chains: ReadonlyMap<string, RouteChain>;
  /** The template of the first route of the path, for a method it does not serve (405). */
  readonly template: string | undefined;
}

const templateOf = (layer: AppLayer | undefined): string | undefined =>
  typeof layer?.path === 'string' ? layer.path : undefined;

const isRoute = (layer: AppLayer): boolean => layer.methods.length > 0;

function chainOf(layers: readonly AppLayer[], enter: ReadonlyMap<AppLayer, EnterLayer>): RouteChain {
  const [first] = layers;
  if (first === undefined) throw new Error('a chain needs a layer');
  const enterOf = (layer: AppLayer): EnterLayer => enter.get(layer) as EnterLayer;
  const middleware: HttpMiddleware[] = [...(first.stack as HttpMiddleware[])];
  for (const layer of layers.slice(1)) {
    const enterNext = enterOf(layer);
    middleware.push((ctx, next) => {
      const routing = ctx as RoutingContext;
      enterNext(routing, routing[ROUTED_PATH] as string);
      return next();
    });
    middleware.push(...(layer.stack as HttpMiddleware[]));
  }
  const composed = compose(middleware);
  // A route whose every middleware writes or releases the held headers itself gets them held; every
  // other one finds them set.
  const keeps = middleware.every(isKeepingHeldHeaders);
  return {
    enterFirst: enterOf(first),
    run: keeps
      ? composed
      : (ctx, next) => {
          releaseHeldHeaders(ctx);
          return composed(ctx, next);
        },
    chained: layers.length > 1,
    template: templateOf(layers.find(isRoute)),
  };
}

function entryOf(matched: readonly AppLayer[], enter: ReadonlyMap<AppLayer, EnterLayer>): PathEntry {
  const chains = new Map<string, RouteChain>();
  for (const method of new Set(matched.flatMap((layer) => layer.methods))) {
    // As @koa/router: the layers of the path that serve the method or any method (router.use), in
    // order; run only when at least one of them is a route.
    chains.set(
      method,
      chainOf(
        matched.filter((layer) => !isRoute(layer) || layer.methods.includes(method)),
        enter,
      ),
    );
  }
  return { matched: Object.freeze([...matched]), chains, template: templateOf(matched.find(isRoute)) };
}

// A template that matches itself alone, character for character: none of path-to-regexp's special
// characters, under a case-sensitive, strict (no trailing slash), whole-path layer.
const LITERAL_TEMPLATE = /^[\w./~-]*$/;

function isStatic(layer: AppLayer): layer is AppLayer & { path: string } {
  const { opts } = layer;
  return (
    typeof layer.path === 'string' &&
    LITERAL_TEMPLATE.test(layer.path) &&
    layer.paramNames.length === 0 &&
    opts.pathAsRegExp !== true &&
    opts.sensitive === true &&
    opts.strict === true &&
    opts.trailing !== true &&
    opts.end !== false &&
    layer.regexp.test(layer.path)
  );
}

/** The most patterns a path is tested against: one bit each of a 32-bit mask. */
const MAX_PATTERNS = 31;

/**
 * The routes of a router, compiled once all are added: what `router.routes()` and `router.match` answer,
 * for almost nothing a request. A path equal to a literal template is one Map lookup; any other is
 * tested against each distinct pattern in registration order, and the set it matches (nearly always
 * one) picks an entry built once. A match makes no array: ctx.matched is the entry's own, frozen.
 */
export class RouteTable {
  private readonly literal = new Map<string, PathEntry>();
  private readonly patterns: readonly RegExp[];
  private readonly bySet = new Map<number, PathEntry>();
  private readonly layers: readonly AppLayer[];
  private readonly layerPatterns: ReadonlyMap<AppLayer, number>;
  private readonly enter: ReadonlyMap<AppLayer, EnterLayer>;

  constructor(router: AppRouter) {
    if (router.host !== undefined || router.exclusive || router.opts.routerPath !== undefined) {
      throw new RangeError('the route table compiles neither host, exclusive nor routerPath routing');
    }
    this.layers = [...router.stack];
    this.enter = new Map(this.layers.map((layer) => [layer, enterLayer(layer)]));
    const patterns = new Map<string, number>();
    const layerPatterns = new Map<AppLayer, number>();
    const regexps: RegExp[] = [];
    for (const layer of this.layers) {
      if (isStatic(layer)) continue;
      if (layer.regexp.global || layer.regexp.sticky) throw new RangeError(`the pattern of ${layer.path} keeps state`);
      const key = String(layer.regexp);
      let index = patterns.get(key);
      if (index === undefined) {
        index = regexps.push(layer.regexp) - 1;
        patterns.set(key, index);
      }
      layerPatterns.set(layer, index);
    }
    if (regexps.length > MAX_PATTERNS) throw new RangeError(`more than ${MAX_PATTERNS} route patterns`);
    this.patterns = regexps;
    this.layerPatterns = layerPatterns;
    for (const layer of this.layers) {
      if (isStatic(layer) && !this.literal.has(layer.path)) {
        const path = layer.path;
        this.literal.set(
          path,
          entryOf(
            this.layers.filter((l) => l.regexp.test(path)),
            this.enter,
          ),
        );
      }
    }
    for (let i = 0; i < regexps.length; i++) this.entryOfSet(1 << i);
  }

  /** The entry of a set of patterns (bit i: the i-th), built the first time the set is met. */
  private entryOfSet(set: number): PathEntry {
    let entry = this.bySet.get(set);
    if (entry === undefined) {
      const matched = this.layers.filter((layer) => {
        const index = this.layerPatterns.get(layer);
        return index !== undefined && (set & (1 << index)) !== 0;
      });
      entry = entryOf(matched, this.enter);
      this.bySet.set(set, entry);
    }
    return entry;
  }

  /** What `path` matches, under any method; undefined when nothing does. */
  private find(path: string): PathEntry | undefined {
    const literal = this.literal.get(path);
    if (literal !== undefined) return literal;
    let set = 0;
    for (let i = 0; i < this.patterns.length; i++) if ((this.patterns[i] as RegExp).test(path)) set |= 1 << i;
    return set === 0 ? undefined : this.entryOfSet(set);
  }

  /** As router.match, methods are compared upper-cased; Node hands them so already. */
  private static chain(entry: PathEntry, method: string): RouteChain | undefined {
    return entry.chains.get(method) ?? entry.chains.get(method.toUpperCase());
  }

  /** `router.match(path, method).route`: whether a route serves this method at this path. */
  isOperation(method: string, path: string): boolean {
    const entry = this.find(path);
    return entry !== undefined && RouteTable.chain(entry, method) !== undefined;
  }

  /**
   * The template of the route a request would have run (the first serving its method at its path),
   * else of the first route of its path (a 405); undefined when none has its path, or when that route's
   * path is a RegExp.
   */
  templateOf(method: string, path: string): string | undefined {
    const entry = this.find(path);
    if (entry === undefined) return undefined;
    const chain = RouteTable.chain(entry, method);
    return chain === undefined ? entry.template : chain.template;
  }

  /**
   * The dispatch of `router.routes()`: sets ctx.matched (every layer of the path, whatever its
   * method: the 405's Allow and the log read it), then runs the layers of the path and method in
   * order, each setting ctx.params and ctx._matchedRoute as it starts; a handler that does not call
   * next ends the chain. Nothing reads what else @koa/router sets (ctx.router, routerPath, captures,
   * routeMatched, request.params), so it is not set. No route of the path and method: on to the next
   * middleware, as the router does with no not-found handler.
   */
  readonly dispatch: HttpMiddleware = (ctx: HttpContext, next: Next) => {
    const path = ctx.path || '';
    const routing = ctx as RoutingContext;
    const entry = this.find(path);
    if (entry === undefined) {
      routing.matched = NONE;
      releaseHeldHeaders(ctx);
      return next();
    }
    routing.matched = entry.matched;
    const chain = RouteTable.chain(entry, ctx.method);
    if (chain === undefined) {
      releaseHeldHeaders(ctx);
      return next();
    }
    if (chain.chained) routing[ROUTED_PATH] = path;
    chain.enterFirst(routing, path);
    return chain.run(ctx, next);
  };
}
