import type { StockChange } from './stock-change.js';
import { eventsOf, type StockEventType } from './stock-event.js';
import { deliveryIdOf, type WebhookEndpoint } from './webhook-endpoint.js';

/**
 * The body of a webhook (DESIGN 4.5): the type, the change's time, and the change. The ids are bigints
 * written by the template literal, exact over the int64 range; the reason goes through JSON.stringify.
 */
export function stockEventJson(type: StockEventType, change: StockChange): string {
  const at = new Date(change.atMs).toISOString();
  return (
    `{"type":"${type}","timestamp":"${at}","data":{"petId":${change.after.petId},"changeId":${change.id},` +
    `"kind":"${change.kind}","quantityBefore":${change.before.quantity},"quantityAfter":${change.after.quantity},` +
    `"statusBefore":"${change.before.status}","statusAfter":"${change.after.status}",` +
    `"reason":${JSON.stringify(change.reason)},"at":"${at}"}}`
  );
}

/** A delivery to queue: one event of one change for one endpoint. */
export interface PlannedDelivery {
  readonly id: string;
  readonly endpointId: string;
  readonly petId: bigint;
  readonly type: StockEventType;
  readonly body: string;
  readonly createdAtMs: number;
}

/** The deliveries a change raises for `endpoints`, endpoint by endpoint, each in `eventsOf`'s order. */
export const deliveriesOf = (change: StockChange, endpoints: readonly WebhookEndpoint[]): PlannedDelivery[] =>
  endpoints.flatMap((endpoint) =>
    eventsOf(change, endpoint).map((type) => ({
      id: deliveryIdOf(endpoint.id, change.id, type),
      endpointId: endpoint.id,
      petId: change.after.petId,
      type,
      body: stockEventJson(type, change),
      createdAtMs: change.atMs,
    })),
  );

/** Events as a stored column: their names separated by spaces. */
export const eventsColumn = (events: readonly StockEventType[]): string => events.join(' ');
