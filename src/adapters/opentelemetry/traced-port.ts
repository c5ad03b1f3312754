import { type Context, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { isAsyncIterable, isPromise, type PortMethod, wrapMethods } from '../shared/method-names.js';

const tracer = trace.getTracer('petstore-inventory');

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * Passes the chunks of a listing through with its span active while the store produces each one, so
 * that the store's own spans (a pg query a page) are its children; the span ends with the listing,
 * also when the consumer stops early (the store is then told, as a bare for-await would tell it).
 */
async function* tracedListing<T>(source: AsyncIterable<T>, span: Span, active: Context): AsyncGenerator<T> {
  const iterator = context.with(active, () => source[Symbol.asyncIterator]());
  let done = false;
  try {
    for (;;) {
      const step = await context.with(active, () => iterator.next());
      if (step.done === true) {
        done = true;
        return;
      }
      yield step.value;
    }
  } catch (error) {
    done = true;
    failed(span, error);
    throw error;
  } finally {
    if (!done) await context.with(active, async () => iterator.return?.());
    if (span.isRecording()) span.end();
  }
}

function tracedMethod(method: PortMethod, target: object, name: string): PortMethod {
  return (...args) => {
    // Outside a request (a background purge, a readiness check) nothing is traced.
    if (trace.getActiveSpan() === undefined) return method.apply(target, args);
    const span = tracer.startSpan(name);
    const active = trace.setSpan(context.active(), span);
    let result: unknown;
    try {
      result = context.with(active, () => method.apply(target, args));
    } catch (error) {
      failed(span, error);
      throw error;
    }
    if (isPromise(result)) {
      // The caller gets the store's own promise; the branch only ends the span.
      result.then(
        () => span.end(),
        (error: unknown) => failed(span, error),
      );
      return result;
    }
    if (isAsyncIterable(result)) return tracedListing(result, span, active);
    span.end();
    return result;
  };
}

/**
 * Wraps a port (a store, the rate limiter) so that every call is a span named `<name>.<method>`, child
 * of the request that made it, with the spans of the store's own client (pg, ioredis) as its children:
 * a promise until it settles, a listing until it ends. Calls made outside any span are not traced.
 */
export function tracedPort<T extends object>(port: T, name: string): T {
  return wrapMethods(port, (method, target, operation) => tracedMethod(method, target, `${name}.${operation}`));
}
