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
