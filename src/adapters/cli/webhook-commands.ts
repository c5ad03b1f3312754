import { fail, ok, type Result } from '../../domain/result.js';
import { isStockEventType, STOCK_EVENT_TYPES, type StockEventType } from '../../domain/stock-event.js';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import type { AdminCommand } from './admin-command.js';
import { required } from './admin-command.js';
import { limitOption, quantityOption, quoted } from './cli-values.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The events of `--events`: names separated by commas, each once. */
function eventsOption(text: string): Result<StockEventType[], string> {
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!isStockEventType(name)) {
      return fail(`--events takes ${STOCK_EVENT_TYPES.join(', ')} separated by commas (got ${quoted(name)})`);
    }
  }
  if (new Set(names).size !== names.length) return fail('--events names an event twice');
  return ok(names as StockEventType[]);
}

const endpointJson = (e: WebhookEndpoint): string =>
  JSON.stringify({
    id: e.id,
    url: e.url,
    events: e.events,
    lowStockThreshold: e.lowStockThreshold,
    enabled: e.enabled,
    failingSince: iso(e.failingSinceMs),
    createdAt: iso(e.createdAtMs),
  });

const endpointLine = (e: WebhookEndpoint): string =>
  [
    e.id,
    e.enabled ? 'enabled' : 'disabled',
    e.url,
    e.events.join(','),
    e.lowStockThreshold ?? '-',
    iso(e.failingSinceMs) ?? '-',
    iso(e.createdAtMs),
  ].join('\t');

export const webhooksAdd: AdminCommand = {
  name: 'webhooks add',
  synopsis: 'webhooks add --url URL --events LIST [--low-stock-threshold N]',
  help: `Usage: petstore webhooks add --url URL --events LIST [--low-stock-threshold N]

Registers an endpoint that is sent stock events, signed per the Standard Webhooks specification, and
prints its signing secret alone on stdout (whsec_...): this is the one time it is shown. Its id goes
to stderr.

Options:
  --url URL                  where to POST: https, and not an address inside the network (loopback,
                             private, link-local, metadata) unless PETSTORE_WEBHOOK_ALLOW_PRIVATE=true
  --events LIST              separated by commas: ${STOCK_EVENT_TYPES.join(', ')}
  --low-stock-threshold N    inventory.low_stock fires when a change takes the quantity from above N to
                             N or below; required with inventory.low_stock, refused without it`,
  options: ['url', 'events', 'low-stock-threshold'],
  positionals: [],
  async run(line, deps) {
    const url = required(line, 'url');
    if (!url.ok) return url;
    const eventsText = required(line, 'events');
    if (!eventsText.ok) return eventsText;
    const events = eventsOption(eventsText.value);
    if (!events.ok) return events;
    const thresholdText = line.options.get('low-stock-threshold');
    const wantsLow = events.value.includes('inventory.low_stock');
    if (wantsLow !== (thresholdText !== undefined)) {
      return fail('--low-stock-threshold goes with inventory.low_stock in --events, and only with it');
    }
    const threshold = thresholdText === undefined ? ok(null) : quantityOption('low-stock-threshold', thresholdText);
    if (!threshold.ok) return threshold;
    const added = await deps.webhooks.addWebhook.execute({
      url: url.value,
      events: events.value,
      lowStockThreshold: threshold.value,
    });
    if (!added.ok) return fail(`--url refused: ${added.error}`);
    return ok({
      stdout: [added.value.secret],
      note: `added ${added.value.endpoint.id}; the secret is shown only this once`,
    });
  },
};

export const webhooksList: AdminCommand = {
  name: 'webhooks list',
  synopsis: 'webhooks list [--json]',
  help: `Usage: petstore webhooks list [--json]

Prints every endpoint, oldest first, one tab-separated line each: id, enabled or disabled, URL, events,
low-stock threshold, failing since, created. With --json, one JSON object per line instead. Secrets are
never printed again.`,
  options: [],
  flags: ['json'],
  positionals: [],
  async run(line, deps) {
    const endpoints = await deps.webhooks.listWebhooks.execute();
    if (endpoints.length === 0) return ok({ stdout: [], note: 'there are no webhook endpoints yet' });
    return ok({ stdout: endpoints.map(line.flags.has('json') ? endpointJson : endpointLine) });
  },
};

export const webhooksRemove: AdminCommand = {
  name: 'webhooks remove',
  synopsis: 'webhooks remove ID',
  help: `Usage: petstore webhooks remove ID

Removes an endpoint (whk_..., as webhooks list shows it), with the deliveries still queued for it and
their attempts. It is sent nothing more.`,
  options: [],
  positionals: ['ID'],
  async run(line, deps) {
    const id = line.positionals[0] as string;
    if (!(await deps.webhooks.removeWebhook.execute(id))) return fail(`no webhook endpoint has id ${quoted(id)}`);
    return ok({ stdout: [], note: `removed ${id}` });
  },
};

export const webhooksEnable: AdminCommand = {
  name: 'webhooks enable',
  synopsis: 'webhooks enable ID',
  help: `Usage: petstore webhooks enable ID

Turns on an endpoint that was disabled after failing for 24 hours, with its failures forgotten: the
deliveries it still holds are attempted again, and new events are queued for it. Prints it as webhooks
list --json does.`,
  options: [],
  positionals: ['ID'],
  async run(line, deps) {
    const id = line.positionals[0] as string;
    const enabled = await deps.webhooks.enableWebhook.execute(id);
    if (enabled === undefined) return fail(`no webhook endpoint has id ${quoted(id)}`);
    return ok({ stdout: [endpointJson(enabled)], note: `${id} is enabled` });
  },
};

export const webhooksDeliveries: AdminCommand = {
  name: 'webhooks deliveries',
  synopsis: 'webhooks deliveries ID [--limit N] [--json]',
  help: `Usage: petstore webhooks deliveries ID [--limit N] [--json]

Prints the most recent attempts at the endpoint's deliveries, newest first (50 unless --limit says
otherwise), one tab-separated line each: when, webhook-id, event, attempt number, the receiver's status
(or -), and the error (or -). With --json, one JSON object per line instead.`,
  options: ['limit'],
  flags: ['json'],
  positionals: ['ID'],
  async run(line, deps) {
    const id = line.positionals[0] as string;
    const limitText = line.options.get('limit');
    const limit = limitText === undefined ? ok(50) : limitOption('limit', limitText);
    if (!limit.ok) return limit;
    const attempts = await deps.webhooks.listWebhookDeliveries.execute({ id, limit: limit.value });
    if (attempts === undefined) return fail(`no webhook endpoint has id ${quoted(id)}`);
    const json = line.flags.has('json');
    return ok({
      stdout: attempts.map((a) =>
        json
          ? JSON.stringify({ ...a, at: iso(a.atMs), atMs: undefined })
          : [iso(a.atMs), a.deliveryId, a.type, a.attempt, a.status ?? '-', a.error ?? '-'].join('\t'),
      ),
      ...(attempts.length === 0 ? { note: 'no attempt yet' } : {}),
    });
  },
};
