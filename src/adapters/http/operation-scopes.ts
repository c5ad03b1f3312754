import type { Scope } from '../../domain/api-key.js';

// RFC 9110 section 9.2.1: the safe methods only read.
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The scope a request under /v1 needs: reading (GET, HEAD, OPTIONS, and GET /v1/rate_limit among
 * them) needs `inventory:read`; every other method needs `inventory:write`. A rule by method rather
 * than a table of routes, so that a write operation added later (adjustments, batches, reservations)
 * is guarded the day it is added, with nothing here to forget.
 */
export const scopeNeeded = (method: string): Scope => (SAFE_METHODS.has(method) ? 'inventory:read' : 'inventory:write');

/** The `WWW-Authenticate` challenge of a 403 for want of `scope` (RFC 6750 section 3.1). */
export const insufficientScopeChallenge = (scope: Scope): string =>
  `Bearer error="insufficient_scope", scope="${scope}"`;
