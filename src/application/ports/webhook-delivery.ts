/** Makes the ids and signing secrets of new webhook endpoints. An adapter draws them from a CSPRNG. */
export interface WebhookSecrets {
  /** `whk_` and 16 base62 characters. */
  newEndpointId(): string;
  /** `whsec_` and the base64 of 24 random bytes. */
  newSecret(): string;
}

/** One attempt to send: what the receiver is sent. */
export interface WebhookMessage {
  readonly url: string;
  /** The webhook-id. */
  readonly id: string;
  readonly secret: string;
  readonly body: string;
  /** The attempt's time, signed with the body (webhook-timestamp). */
  readonly atMs: number;
}

/** What came of an attempt: the receiver's status, or why none came. */
export interface WebhookAnswer {
  readonly status: number | null;
  readonly error: string | null;
}

/** Sends signed webhooks. It never throws for the receiver's sake: a failure is an answer. */
export interface WebhookSender {
  send(message: WebhookMessage): Promise<WebhookAnswer>;
}

/**
 * Says why a URL may not receive webhooks (not https, or naming an address inside the network), or
 * undefined when it may. Asked when an endpoint is registered; the sender asks again at each
 * connection, since a name may resolve elsewhere later.
 */
export type WebhookUrlCheck = (url: string) => Promise<string | undefined>;
