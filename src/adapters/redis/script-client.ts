/**
 * What RedisRateLimiter asks of its Redis client, and no more: to define its Lua scripts, and whether it
 * is a Cluster (whose calls are split by hash slot). An ioredis `Redis` or `Cluster` is one as it is,
 * with no augmentation of ioredis's types; so is any client with these two members.
 */
export interface ScriptClient {
  readonly isCluster: boolean;
  /**
   * ioredis's: gives the client a `<name>Buffer` method that runs the script, its reply as Redis sent
   * it (bulk strings as Buffers). It sends EVAL on a connection's first call and EVALSHA after, and EVAL
   * again when the server lost the script (a restart): bookkeeping per connection, which only the client sees.
   */
  defineCommand(name: string, definition: { readonly lua: string; readonly numberOfKeys?: number }): void;
}

/** A script's call: its arguments (the number of keys first when its definition gives none), its reply. */
export type ScriptCall = (...args: readonly (string | number)[]) => Promise<unknown>;

/** Defines `lua` on `client` under `name`; the call of its Buffer form. */
export function defineScript(
  client: ScriptClient,
  name: string,
  definition: { readonly lua: string; readonly numberOfKeys?: number },
): ScriptCall {
  client.defineCommand(name, definition);
  const call: unknown = Reflect.get(client, `${name}Buffer`);
  if (typeof call !== 'function') throw new TypeError(`the Redis client defined no ${name}Buffer`);
  return (...args) => call.apply(client, args);
}
