import { ContainerModule } from 'inversify';
import { NodeKeyCrypto } from '../adapters/system/node-key-crypto.js';
import { NodeWebhookSecrets } from '../adapters/system/node-webhook-secrets.js';
import { systemClock } from '../adapters/system/system-clock.js';
import { webhookUrlCheck } from '../adapters/webhooks/webhook-url-policy.js';
import { createInventoryCore } from '../application/inventory-core.js';
import { createWebhookAdmin } from '../application/webhook-core.js';
import { banPolicy } from '../domain/ban.js';
import type { Config } from './config.js';
import { bindResolved, id, TOKENS } from './tokens.js';

/**
 * The machine's clock and CSPRNG, the ban policy from configuration, every use case,
 * and the webhook admin's.
 */
export const coreModule = (config: Config) =>
  new ContainerModule((options) => {
    const { bind } = options;
    bind(id(TOKENS.clock)).toConstantValue(systemClock);
    const crypto = new NodeKeyCrypto();
    bind(id(TOKENS.keyGenerator)).toConstantValue(crypto);
    bind(id(TOKENS.keyHasher)).toConstantValue(crypto);
    bind(id(TOKENS.banPolicy)).toConstantValue(banPolicy({ ...config.ban, escalationWindowMs: 86_400_000 }));
    bindResolved(
      options,
      TOKENS.core,
      [
        TOKENS.inventory,
        TOKENS.changes,
        TOKENS.feed,
        TOKENS.pets,
        TOKENS.orders,
        TOKENS.keys,
        TOKENS.limiter,
        TOKENS.clock,
        TOKENS.keyGenerator,
        TOKENS.keyHasher,
      ],
      (inventory, changes, feed, pets, orders, keys, limiter, clock, keyGenerator, keyHasher) =>
        createInventoryCore(
          { inventory, changes, feed, pets, orders, keys, limiter, clock, keyGenerator, keyHasher },
          { idempotencyTtlMs: config.idempotencyTtlMs, holdLimits: config.holdLimits },
        ),
    );
    bindResolved(options, TOKENS.webhookAdmin, [TOKENS.webhooks, TOKENS.clock], (webhooks, clock) =>
      createWebhookAdmin({
        webhooks,
        clock,
        secrets: new NodeWebhookSecrets(),
        checkUrl: webhookUrlCheck(config.webhooks.allowPrivate),
      }),
    );
  });
