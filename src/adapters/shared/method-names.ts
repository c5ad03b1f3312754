/** The names of the methods of `value`: its own and its prototypes', short of Object's. */
function methodNames(value: object): Set<string> {
  const names = new Set<string>();
  for (let o: object | null = value; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name !== 'constructor' && typeof Reflect.get(o, name) === 'function') names.add(name);
    }
  }
  return names;
}

/** Whether `value` is a promise (a thenable), which a wrapper must follow to its end. */
export const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/** Whether `value` is an async iterable, such as a store's listing, whose work happens as it is read. */
export const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** A method of a port; wrappers call it with the port itself as `this`. */
export type PortMethod = (...args: unknown[]) => unknown;

/**
 * A wrapper of `port` whose every method is `wrap(method, port, name)`. The wrapper inherits from the
 * port: its other properties and `instanceof` stay the port's, and its methods are its own, found
 * without a proxy's trap on every call. A wrap must apply `method` to `port`, not to the wrapper, so
 * that private fields of adapter classes stay reachable.
 */
export function wrapMethods<T extends object>(
  port: T,
  wrap: (method: PortMethod, port: T, name: string) => PortMethod,
): T {
  const wrapper = Object.create(port) as T;
  for (const name of methodNames(port)) {
    Object.defineProperty(wrapper, name, { value: wrap(Reflect.get(port, name) as PortMethod, port, name) });
  }
  return wrapper;
}
