import { trace } from '@opentelemetry/api';

/** What a request turned out to be (the HTTP adapter's TracedRequest). */
interface DescribedRequest {
  readonly method: string;
  readonly route: string;
  readonly keyId: string | undefined;
}

/**
 * Names the span of the request being served (made by the http instrumentation, which knows no route)
 * `<method> <route template>` and gives it `http.route` and `petstore.key_id`: the key's id, never
 * the key. Koa's own instrumentation is unmaintained; the route is the HTTP adapter's to tell.
 */
export const requestSpans = {
  describe({ method, route, keyId }: DescribedRequest): void {
    const span = trace.getActiveSpan();
    if (span === undefined) return;
    span.updateName(`${method} ${route}`);
    span.setAttribute('http.route', route);
    if (keyId !== undefined) span.setAttribute('petstore.key_id', keyId);
  },
};
