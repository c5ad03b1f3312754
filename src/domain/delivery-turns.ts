/** A delivery due now, as the lease weighs it. */
export interface DueDelivery {
  readonly endpointId: string;
  /** Whether its endpoint has failed since its last success: such endpoints are served after the others. */
  readonly endpointFailing: boolean;
}

/** What the lease of one round may take. */
export interface TurnLimits {
  /** Deliveries leased and not yet settled, by endpoint (absent: none). */
  readonly inFlight: ReadonlyMap<string, number>;
  /** How many deliveries of one endpoint may be in flight at once. */
  readonly perEndpoint: number;
  /** How many the round takes in all. */
  readonly max: number;
}

/**
 * Which of the deliveries due now one round leases, in the order they were given (each endpoint's oldest
 * first): the endpoints take turns, one delivery each a turn, those whose endpoint is not failing first
 * in each turn; an endpoint stops once it has `perEndpoint` in flight, and the round once it has `max`.
 * An endpoint that never answers thus holds at most `perEndpoint` attempts, and a burst for one endpoint
 * waits behind the others' first deliveries instead of taking every attempt of the round.
 */
export function takeTurns<T extends DueDelivery>(due: readonly T[], limits: TurnLimits): T[] {
  const queues = new Map<string, T[]>();
  for (const delivery of due) {
    const queue = queues.get(delivery.endpointId);
    if (queue === undefined) queues.set(delivery.endpointId, [delivery]);
    else queue.push(delivery);
  }
  const room = new Map<string, number>();
  for (const endpointId of queues.keys()) {
    room.set(endpointId, limits.perEndpoint - (limits.inFlight.get(endpointId) ?? 0));
  }
  const order = [...queues.values()].sort((a, b) => Number(a[0]?.endpointFailing) - Number(b[0]?.endpointFailing));
  const taken: T[] = [];
  for (let turn = 0; taken.length < limits.max; turn += 1) {
    let any = false;
    for (const queue of order) {
      const delivery = queue[turn];
      if (delivery === undefined || turn >= (room.get(delivery.endpointId) ?? 0)) continue;
      any = true;
      taken.push(delivery);
      if (taken.length >= limits.max) break;
    }
    if (!any) break;
  }
  return taken;
}

/**
 * The host a delivery goes to, as the cap per host counts it: the URL's host name or literal address
 * (lower case, an IPv6 one in brackets), whatever its port or path. A machine that hangs hangs on each
 * of its ports, and the cap is also what one machine is sent at once; two names of one machine count
 * apart (the cap is on what the URL says, which needs no resolver).
 */
export const destinationHost = (url: string): string => new URL(url).hostname;

/** Deliveries leased and not yet settled, by host, from their counts by URL. */
export function inFlightByHost(byUrl: Iterable<readonly [url: string, count: number]>): Map<string, number> {
  const hosts = new Map<string, number>();
  for (const [url, count] of byUrl) {
    const host = destinationHost(url);
    hosts.set(host, (hosts.get(host) ?? 0) + count);
  }
  return hosts;
}

/** What one round may lease to each host. */
export interface HostLimits {
  /** Deliveries leased and not yet settled, by host (absent: none). */
  readonly inFlight: ReadonlyMap<string, number>;
  /** How many deliveries to one host may be in flight at once, over all of its endpoints. */
  readonly perHost: number;
  /** How many the round takes in all. */
  readonly max: number;
}

/**
 * Of the deliveries a lease would take, in its order (see `takeTurns`), the first `max` whose host has
 * room: none past `perHost` in flight to one host. Endpoints by the hundred on one receiver that never
 * answers thus hold `perHost` attempts between them, not `perEndpoint` each, and the attempts left go
 * to the other hosts.
 */
export function withinHostCap<T extends { readonly url: string }>(ordered: readonly T[], limits: HostLimits): T[] {
  const used = new Map(limits.inFlight);
  const taken: T[] = [];
  for (const delivery of ordered) {
    if (taken.length >= limits.max) break;
    const host = destinationHost(delivery.url);
    const inFlight = used.get(host) ?? 0;
    if (inFlight >= limits.perHost) continue;
    used.set(host, inFlight + 1);
    taken.push(delivery);
  }
  return taken;
}
