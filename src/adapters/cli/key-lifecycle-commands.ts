import { KEY_AUDIT_LIMIT_MAX } from '../../application/use-cases/list-key-audit.js';
import { DEFAULT_ROLL_GRACE_MS } from '../../application/use-cases/roll-api-key.js';
import { integerInRange } from '../../domain/decimal-integer.js';
import { fail, ok } from '../../domain/result.js';
import type { AdminCommand } from './admin-command.js';
import { changedExpiry, EXPIRY_OPTIONS_HELP } from './key-expiry-options.js';
import { auditJson, auditLine, keyCard, keyJson } from './key-output.js';
import { actorOf, durationOption } from './key-values.js';

const iso = (ms: number | null): string => (ms === null ? 'never' : new Date(ms).toISOString());

export const keysRoll: AdminCommand = {
  name: 'keys roll',
  synopsis: 'keys roll KEY-ID [--grace SPAN] [--actor WHO]',
  help: `Usage: petstore keys roll KEY-ID [--grace SPAN] [--actor WHO]

Replaces a key in use by a new one and prints the new key alone on stdout (shown only this once). The
new key has the old one's name, plan, limits, scopes and expiry; both count against one set of limits,
so rolling neither resets nor doubles them. The old key keeps working until the grace ends, then is
answered 401 key_expired; every instance sees the change within a second.

Options:
  --grace SPAN       how long the old key keeps working: a whole number and a unit (ms, s, m, h, d), or 0
                     to end it now (default: 24h)
  --actor WHO        who rolls it, for the audit trail (default: the operating system's user)`,
  options: ['grace', 'actor'],
  positionals: ['KEY-ID'],
  async run(line, deps) {
    const id = line.positionals[0] as string;
    const graceText = line.options.get('grace');
    const grace = graceText === undefined ? ok(DEFAULT_ROLL_GRACE_MS) : durationOption('grace', graceText);
    if (!grace.ok) return grace;
    const actor = actorOf(line);
    if (!actor.ok) return actor;
    const rolled = await deps.rollApiKey.execute({ id, graceMs: grace.value, actor: actor.value });
    if (!rolled.ok) return fail(`${rolled.error.message}: ${id}`);
    const { key, record, old } = rolled.value;
    return ok({
      stdout: [key],
      note: `rolled ${old.id} into ${record.id}; ${old.id} works until ${iso(old.expiresAtMs)}; the new key is shown only this once`,
    });
  },
};

export const keysExpire: AdminCommand = {
  name: 'keys expire',
  synopsis: 'keys expire KEY-ID (--expires-in SPAN | --expires-at TIME) [--actor WHO]',
  help: `Usage: petstore keys expire KEY-ID (--expires-in SPAN | --expires-at TIME) [--actor WHO]

Sets when a key that is not revoked stops working: sooner, later, or now (--expires-in 0). From then
on it is answered 401 key_expired; every instance sees the change within a second. Prints the key as
keys list --json does.

Options:
${EXPIRY_OPTIONS_HELP}
  --actor WHO        who changes it, for the audit trail (default: the operating system's user)`,
  options: ['expires-in', 'expires-at', 'actor'],
  positionals: ['KEY-ID'],
  async run(line, deps) {
    const id = line.positionals[0] as string;
    const expires = changedExpiry(line.options, deps.clock.nowMs());
    if (!expires.ok) return expires;
    const actor = actorOf(line);
    if (!actor.ok) return actor;
    const changed = await deps.setKeyExpiry.execute({
      id,
      expires: expires.value,
      actor: actor.value,
    });
    if (!changed.ok) return fail(`${changed.error.message}: ${id}`);
    return ok({ stdout: [keyJson(changed.value)], note: `${id} expires ${iso(changed.value.expiresAtMs)}` });
  },
};

export const keysShow: AdminCommand = {
  name: 'keys show',
  synopsis: 'keys show KEY-ID [--json]',
  help: `Usage: petstore keys show KEY-ID [--json]

Prints one key: its id, name, plan, limits, scopes, and when it was created, expires, was last used (to
within a minute) and was revoked, a "field: value" line each; with --json, one JSON object as
keys list --json prints it.`,
  options: [],
  flags: ['json'],
  positionals: ['KEY-ID'],
  async run(line, deps) {
    const id = line.positionals[0] as string;
    const found = await deps.getApiKey.execute({ id });
    if (!found.ok) return fail(`${found.error.message}: ${id}`);
    return ok({ stdout: line.flags.has('json') ? [keyJson(found.value)] : keyCard(found.value) });
  },
};

const AUDIT_LIMIT_DEFAULT = 100;

export const keysAudit: AdminCommand = {
  name: 'keys audit',
  synopsis: 'keys audit [--limit N] [--json]',
  help: `Usage: petstore keys audit [--limit N] [--json]

Prints the audit trail of the admin changes to keys, newest first: every create, roll, revoke and
expiry change, with its time, key id, action, actor and what it did, one tab-separated line each. The
trail is append-only: nothing changes or removes an entry.

Options:
  --limit N          the newest N entries, 1 to ${KEY_AUDIT_LIMIT_MAX} (default: ${AUDIT_LIMIT_DEFAULT})
  --json             one JSON object per line instead:
                     {"seq":3,"at":"…","action":"roll","keyId":"key_…","actor":"alice",
                      "newKeyId":"key_…","expiresAt":"…"}`,
  options: ['limit'],
  flags: ['json'],
  positionals: [],
  async run(line, deps) {
    const limitText = line.options.get('limit');
    const limit = limitText === undefined ? AUDIT_LIMIT_DEFAULT : integerInRange(limitText, 1, KEY_AUDIT_LIMIT_MAX);
    if (limit === undefined) {
      return fail(`--limit must be a whole number from 1 to ${KEY_AUDIT_LIMIT_MAX} (got ${JSON.stringify(limitText)})`);
    }
    const entries = await deps.listKeyAudit.execute({ limit });
    if (entries.length === 0) return ok({ stdout: [], note: 'the audit trail is empty' });
    return ok({ stdout: entries.map(line.flags.has('json') ? auditJson : auditLine) });
  },
};
