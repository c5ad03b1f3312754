/**
 * Lints the OpenAPI document the service serves with Spectral: its recommended OpenAPI ruleset and the
 * OWASP API security ruleset, both from npm (no network). Fails on any error, and on any warning that
 * docs/decisions.md does not justify (ACCEPTED_WARNINGS below, each with its reason there).
 * Usage: npm run lint:api
 */
import spectralCore from '@stoplight/spectral-core';
import spectralFunctions from '@stoplight/spectral-functions';
import owasp from '@stoplight/spectral-owasp-ruleset';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { fetchServedDocument, withExampleService } from './served-openapi.js';

const { Spectral, Document } = spectralCore;

/**
 * Rules whose warnings are accepted. Each is justified in docs/decisions.md, "A linted API description";
 * the reason is repeated here in short.
 */
export const ACCEPTED_WARNINGS: Readonly<Record<string, string>> = {
  'owasp:api8:2023-define-cors-origin': 'no CORS by design: no browser of another origin calls the API',
  'owasp:api1:2023-no-numeric-ids': 'the specification makes petId an int64; keys, not ids, guard access',
  'owasp:api4:2023-array-limit': 'the plain list returns every pet, as the specification asks; paging is optional',
  'owasp:api4:2023-string-limit': 'response strings are the service’s own; request strings are bounded headers',
  'owasp:api4:2023-string-restricted': 'free text (names, messages) and structured header fields',
  'owasp:api8:2023-define-error-validation': 'listOrders and the document take no input to refuse',
  'owasp:api8:2023-define-error-responses-401': 'the OpenAPI document is open: it never answers 401',
  'owasp:api2:2023-read-restricted': 'the OpenAPI document is open on purpose: tools and /docs read it',
  'info-contact': 'the operator, not the code, knows whom to contact',
  'oas3-operation-security-defined':
    'OpenAPI 3.1 lets a bearer requirement list role names (the scopes); the rule knows only OAuth flows',
};

/** The Spectral functions the project's own rules use, from the package the OWASP ruleset uses. */
const { defined, schema } = spectralFunctions;

/**
 * The rulesets, with two OWASP rules replaced by corrected copies and four that do not fit this API
 * lowered to warnings (accepted above):
 * - `owasp:api4:2023-rate-limit` asks for one of four header families with `oneOf`, so an API that sends
 *   both the classic X-RateLimit-* and the IETF draft fields (as this one does) fails it: the copy asks
 *   for at least one;
 * - `owasp:api4:2023-integer-limit` asks int64 values for bounds a JSON number cannot write exactly
 *   (2^63 - 1); `format: int64` states that range, and the copy asks the bounds of every other integer.
 */
export const RULESET = {
  extends: [
    [oas, 'recommended'],
    [owasp, 'recommended'],
  ],
  rules: {
    'owasp:api4:2023-rate-limit': 'off',
    'owasp:api4:2023-integer-limit': 'off',
    'owasp:api8:2023-define-cors-origin': 'warn',
    'owasp:api1:2023-no-numeric-ids': 'warn',
    'owasp:api4:2023-array-limit': 'warn',
    'owasp:api4:2023-string-limit': 'warn',
    'petstore-rate-limit-headers': {
      message: 'All 2XX and 4XX responses should define rate limiting headers.',
      severity: 'error',
      given: '$.paths[*]..responses[?(@property.match(/^(2|4)/))]',
      // biome-ignore lint/suspicious/noThenProperty: Spectral's rule format names a rule's checks `then`.
      then: {
        field: 'headers',
        function: schema,
        functionOptions: {
          schema: {
            type: 'object',
            anyOf: [
              { required: ['RateLimit'] },
              { required: ['RateLimit-Limit', 'RateLimit-Reset'] },
              { required: ['X-RateLimit-Limit'] },
              { required: ['X-Rate-Limit-Limit'] },
            ],
          },
        },
      },
    },
    'petstore-integer-limit': {
      message: 'Schema of type integer must specify minimum and maximum (int64 states its own range).',
      severity: 'error',
      given: "$..[?(@ && @.type === 'integer' && @.format !== 'int64')]",
      // biome-ignore lint/suspicious/noThenProperty: Spectral's rule format names a rule's checks `then`.
      then: [
        { field: 'minimum', function: defined },
        { field: 'maximum', function: defined },
      ],
    },
  },
};

const SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

export interface LintFinding {
  readonly severity: (typeof SEVERITY)[number];
  readonly code: string;
  readonly path: string;
  readonly message: string;
}

/** Every finding of the two rulesets on `document`. */
export async function lintOpenApi(document: unknown): Promise<LintFinding[]> {
  const spectral = new Spectral();
  spectral.setRuleset(RULESET as never);
  const results = await spectral.run(
    new Document(JSON.stringify(document, null, 2), spectralParsers.Json, 'openapi.json'),
  );
  return results.map((r) => ({
    severity: SEVERITY[r.severity] ?? 'hint',
    code: String(r.code),
    path: r.path.join('.'),
    message: r.message,
  }));
}

/** The findings that fail the lint: every error, and every warning of a rule not accepted. */
export const failing = (findings: readonly LintFinding[]): LintFinding[] =>
  findings.filter((f) => f.severity === 'error' || (f.severity === 'warning' && !(f.code in ACCEPTED_WARNINGS)));

if (process.argv[1]?.endsWith('lint-openapi.ts')) {
  const findings = await lintOpenApi(await withExampleService(fetchServedDocument));
  const bad = failing(findings);
  for (const f of bad) process.stdout.write(`${f.severity} ${f.code} ${f.path}: ${f.message}\n`);
  const accepted = new Map<string, number>();
  for (const f of findings) if (!bad.includes(f)) accepted.set(f.code, (accepted.get(f.code) ?? 0) + 1);
  for (const [code, n] of accepted)
    process.stdout.write(`accepted: ${n} x ${code} (${ACCEPTED_WARNINGS[code] ?? 'info'})\n`);
  process.stdout.write(
    `OpenAPI lint (Spectral oas + OWASP): ${bad.length} failing, ${findings.length - bad.length} accepted\n`,
  );
  process.exitCode = bad.length === 0 ? 0 : 1;
}
