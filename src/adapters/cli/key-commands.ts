import { DEFAULT_SCOPES, KEY_NAME_MAX, SCOPES } from '../../domain/api-key.js';
import { PLAN_POLICIES, type RateLimitPolicy, rateLimitPolicy } from '../../domain/plan.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { AdminCommand } from './admin-command.js';
import { required } from './admin-command.js';
import { limitOption, planOption, textOption } from './cli-values.js';
import { EXPIRY_OPTIONS_HELP, newKeyExpiry } from './key-expiry-options.js';
import { keyJson, keyTable, limitsText } from './key-output.js';
import { actorOf, scopesOption } from './key-values.js';

const FIXED_PLANS = Object.entries(PLAN_POLICIES)
  .map(([plan, policy]) => `${plan} (${limitsText(policy)})`)
  .join(', ');

/** `--name`, or `--label`, its spelling before 1.2: one of them, checked. */
function nameOf(options: ReadonlyMap<string, string>): Result<string | undefined, string> {
  const name = options.get('name');
  const label = options.get('label');
  if (name !== undefined && label !== undefined) return fail('give --name or --label (its older spelling), not both');
  if (name !== undefined) return textOption('name', name, KEY_NAME_MAX);
  return label === undefined ? ok(undefined) : textOption('label', label, KEY_NAME_MAX);
}

export const keysCreate: AdminCommand = {
  name: 'keys create',
  synopsis:
    'keys create --plan PLAN [--per-minute N --per-day N] [--name TEXT] [--scopes LIST] [--expires-in SPAN | --expires-at TIME] [--actor WHO]',
  help: `Usage: petstore keys create --plan PLAN [--per-minute N --per-day N] [--name TEXT] [--scopes LIST]
                            [--expires-in SPAN | --expires-at TIME] [--actor WHO]

Makes a new API key and prints it alone on stdout: psk_ and 40 base62 characters. Only its SHA-256
hash is stored, so this is the one time the key is shown. Its id goes to stderr.

Options:
  --plan PLAN        free, pro, business or enterprise (required)
  --per-minute N     requests a minute; enterprise only, and required for it
  --per-day N        requests a day, at least --per-minute; enterprise only, and required for it
  --name TEXT        a name to tell the key apart, such as the customer's (at most ${KEY_NAME_MAX} characters);
                     --label is the same option's older spelling
  --scopes LIST      what the key may do, separated by commas: ${SCOPES.join(', ')}
                     (default: ${DEFAULT_SCOPES.join(',')})
${EXPIRY_OPTIONS_HELP}
  --actor WHO        who makes it, for the audit trail (default: the operating system's user)

Plans with fixed limits: ${FIXED_PLANS}.`,
  options: ['plan', 'per-minute', 'per-day', 'label', 'name', 'scopes', 'expires-in', 'expires-at', 'actor'],
  positionals: [],
  async run(line, deps) {
    const planText = required(line, 'plan');
    if (!planText.ok) return planText;
    const plan = planOption('plan', planText.value);
    if (!plan.ok) return plan;
    const limits = limitsOf(plan.value, line.options);
    if (!limits.ok) return limits;
    const name = nameOf(line.options);
    if (!name.ok) return name;
    const scopesText = line.options.get('scopes');
    const scopes = scopesText === undefined ? ok(undefined) : scopesOption('scopes', scopesText);
    if (!scopes.ok) return scopes;
    const expires = newKeyExpiry(line.options, deps.clock.nowMs());
    if (!expires.ok) return expires;
    const actor = actorOf(line);
    if (!actor.ok) return actor;
    const { key, record } = await deps.issueApiKey.execute({
      plan: plan.value,
      actor: actor.value,
      ...(limits.value === undefined ? {} : { limits: limits.value }),
      ...(name.value === undefined ? {} : { name: name.value }),
      ...(scopes.value === undefined ? {} : { scopes: scopes.value }),
      ...(expires.value === undefined ? {} : { expires: expires.value }),
    });
    const expiry = record.expiresAtMs === null ? '' : `, expiring ${new Date(record.expiresAtMs).toISOString()}`;
    return ok({
      stdout: [key],
      note:
        `created ${record.id} on the ${record.plan} plan (${limitsText(record.policy)}) with ` +
        `${record.scopes.join(', ')}${expiry}; the key is shown only this once`,
    });
  },
};

function limitsOf(plan: string, options: ReadonlyMap<string, string>): Result<RateLimitPolicy | undefined, string> {
  const perMinute = options.get('per-minute');
  const perDay = options.get('per-day');
  if (plan !== 'enterprise') {
    if (perMinute === undefined && perDay === undefined) return ok(undefined);
    return fail(`the ${plan} plan has fixed limits; --per-minute and --per-day are for enterprise keys only`);
  }
  if (perMinute === undefined || perDay === undefined) {
    return fail('the enterprise plan needs its own limits: give both --per-minute and --per-day');
  }
  const minute = limitOption('per-minute', perMinute);
  if (!minute.ok) return minute;
  const day = limitOption('per-day', perDay);
  if (!day.ok) return day;
  // A day's limit below the minute's makes the minute's a lie: the key is refused once the day's few are
  // spent, whatever the minute allows. Equal is allowed (a key for a burst a day).
  if (day.value < minute.value) {
    return fail(`--per-day (${day.value}) must be at least --per-minute (${minute.value})`);
  }
  return ok(rateLimitPolicy(minute.value, day.value));
}

export const keysList: AdminCommand = {
  name: 'keys list',
  synopsis: 'keys list [--json]',
  help: `Usage: petstore keys list [--json]

Prints every API key, oldest first, as a table: a header line, then one tab-separated line a key with
its id, name, plan, limits, scopes, and when it was created, expires, was last used (to within a
minute) and was revoked. Times are RFC 3339 in UTC.

With --json, one JSON object per line (JSON Lines) instead, for scripts:
  {"id":"key_…","name":null,"plan":"free","perMinute":60,"perDay":1000,
   "scopes":["inventory:read","inventory:write"],"createdAt":"2026-01-01T00:00:00.000Z",
   "expiresAt":null,"lastUsedAt":null,"revokedAt":null,"rolledFrom":null}
The keys themselves are never stored, so they cannot be listed.`,
  options: [],
  flags: ['json'],
  positionals: [],
  async run(line, deps) {
    const keys = await deps.listApiKeys.execute();
    if (keys.length === 0) return ok({ stdout: [], note: 'there are no API keys yet' });
    return ok({ stdout: line.flags.has('json') ? keys.map(keyJson) : keyTable(keys) });
  },
};

export const keysRevoke: AdminCommand = {
  name: 'keys revoke',
  synopsis: 'keys revoke ID-OR-KEY [--actor WHO]',
  help: `Usage: petstore keys revoke ID-OR-KEY [--actor WHO]

Revokes an API key, named by its id (key_…, as keys list shows) or by the key itself (psk_…). A
revoked key is refused within a second by every instance. Prints the key as keys list --json does;
revoking a key again keeps its first revocation time and records nothing new.

Options:
  --actor WHO        who revokes it, for the audit trail (default: the operating system's user)`,
  options: ['actor'],
  positionals: ['ID-OR-KEY'],
  async run(line, deps) {
    const idOrKey = line.positionals[0] as string;
    const actor = actorOf(line);
    if (!actor.ok) return actor;
    const revoked = await deps.revokeApiKey.execute({ idOrKey, actor: actor.value });
    if (!revoked.ok) return fail(`${revoked.error.message}: ${idOrKey.startsWith('psk_') ? 'the key given' : idOrKey}`);
    return ok({ stdout: [keyJson(revoked.value)], note: `${revoked.value.id} is revoked` });
  },
};
