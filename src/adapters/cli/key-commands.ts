import { type ApiKeyRecord, KEY_LABEL_MAX } from '../../domain/api-key.js';
import { PLAN_POLICIES, type RateLimitPolicy, rateLimitPolicy } from '../../domain/plan.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { AdminCommand } from './admin-command.js';
import { required } from './admin-command.js';
import { limitOption, planOption, textOption } from './cli-values.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** One key as `keys list` and `keys revoke` print it: a JSON object on one line, never the key. */
export const keyLine = (key: ApiKeyRecord): string =>
  JSON.stringify({
    id: key.id,
    plan: key.plan,
    perMinute: key.policy.perMinute,
    perDay: key.policy.perDay,
    label: key.label,
    createdAt: iso(key.createdAtMs),
    revokedAt: iso(key.revokedAtMs),
  });

const limitsText = (policy: RateLimitPolicy): string => `${policy.perMinute} a minute, ${policy.perDay} a day`;

const FIXED_PLANS = Object.entries(PLAN_POLICIES)
  .map(([plan, policy]) => `${plan} (${limitsText(policy)})`)
  .join(', ');

export const keysCreate: AdminCommand = {
  name: 'keys create',
  synopsis: 'keys create --plan PLAN [--per-minute N --per-day N] [--label TEXT]',
  help: `Usage: petstore keys create --plan PLAN [--per-minute N --per-day N] [--label TEXT]

Makes a new API key and prints it alone on stdout: psk_ and 40 base62 characters. Only its SHA-256
hash is stored, so this is the one time the key is shown. Its id goes to stderr.

Options:
  --plan PLAN        free, pro, business or enterprise (required)
  --per-minute N     requests a minute; enterprise only, and required for it
  --per-day N        requests a day; enterprise only, and required for it
  --label TEXT       a note to tell the key apart, such as the customer's name (at most ${KEY_LABEL_MAX}
                     characters)

Plans with fixed limits: ${FIXED_PLANS}.`,
  options: ['plan', 'per-minute', 'per-day', 'label'],
  positionals: [],
  async run(line, deps) {
    const planText = required(line, 'plan');
    if (!planText.ok) return planText;
    const plan = planOption('plan', planText.value);
    if (!plan.ok) return plan;
    const limits = limitsOf(plan.value, line.options);
    if (!limits.ok) return limits;
    const labelText = line.options.get('label');
    const label = labelText === undefined ? undefined : textOption('label', labelText, KEY_LABEL_MAX);
    if (label !== undefined && !label.ok) return label;
    const { key, record } = await deps.issueApiKey.execute({
      plan: plan.value,
      ...(limits.value === undefined ? {} : { limits: limits.value }),
      ...(label === undefined ? {} : { label: label.value }),
    });
    return ok({
      stdout: [key],
      note: `created ${record.id} on the ${record.plan} plan (${limitsText(record.policy)}); the key is shown only this once`,
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
  return ok(rateLimitPolicy(minute.value, day.value));
}

export const keysList: AdminCommand = {
  name: 'keys list',
  synopsis: 'keys list',
  help: `Usage: petstore keys list

Prints every API key, oldest first, as one JSON object per line (JSON Lines):
  {"id":"key_…","plan":"free","perMinute":60,"perDay":1000,"label":null,
   "createdAt":"2026-01-01T00:00:00.000Z","revokedAt":null}
Times are ISO 8601 in UTC; revokedAt is null for a key in use. The keys themselves are never stored,
so they cannot be listed.`,
  options: [],
  positionals: [],
  async run(_line, deps) {
    const keys = await deps.listApiKeys.execute();
    return ok({ stdout: keys.map(keyLine), ...(keys.length === 0 ? { note: 'there are no API keys yet' } : {}) });
  },
};

export const keysRevoke: AdminCommand = {
  name: 'keys revoke',
  synopsis: 'keys revoke ID-OR-KEY',
  help: `Usage: petstore keys revoke ID-OR-KEY

Revokes an API key, named by its id (key_…, as keys list shows) or by the key itself (psk_…). A
revoked key is refused at once. Prints the key's line as keys list does; revoking a key again keeps
its first revocation time.`,
  options: [],
  positionals: ['ID-OR-KEY'],
  async run(line, deps) {
    const idOrKey = line.positionals[0] as string;
    const revoked = await deps.revokeApiKey.execute({ idOrKey });
    if (!revoked.ok) return fail(`${revoked.error.message}: ${idOrKey.startsWith('psk_') ? 'the key given' : idOrKey}`);
    return ok({ stdout: [keyLine(revoked.value)], note: `${revoked.value.id} is revoked` });
  },
};
