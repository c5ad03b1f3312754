import { randomBytes } from 'node:crypto';
import type { WebhookSecrets } from '../../application/ports/webhook-delivery.js';
import { randomBase62 } from './node-key-crypto.js';

/** Endpoint ids and signing secrets from node's CSPRNG. */
export class NodeWebhookSecrets implements WebhookSecrets {
  newEndpointId(): string {
    return `whk_${randomBase62(16)}`;
  }

  // 24 bytes: within the 24 to 64 the Standard Webhooks specification asks of a secret.
  newSecret(): string {
    return `whsec_${randomBytes(24).toString('base64')}`;
  }
}
