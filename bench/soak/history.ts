import type { Change } from './checks.js';

const PAGE = 100;

/** The target of a `Link` header's rel="next" (RFC 8288), if any. */
export function nextLink(link: string | null): string | undefined {
  if (link === null) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

async function getJson(url: string, key: string): Promise<{ body: unknown; link: string | null }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(15_000) });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  return { body: await res.json(), link: res.headers.get('link') };
}

/** A pet's whole history, newest first, read page by page through rel="next". */
export async function readHistory(base: string, key: string, petId: number): Promise<Change[]> {
  const changes: Change[] = [];
  let url: string | undefined = `${base}/v1/inventory/${petId}/changes?limit=${PAGE}`;
  while (url !== undefined) {
    const { body, link } = await getJson(url, key);
    type Entry = {
      id: number | string;
      quantityBefore: number;
      quantityAfter: number;
      kind: string;
      reason: string | null;
    };
    for (const entry of body as Entry[]) {
      changes.push({
        id: String(entry.id),
        quantityBefore: entry.quantityBefore,
        quantityAfter: entry.quantityAfter,
        kind: entry.kind,
        reason: entry.reason,
      });
    }
    const next = nextLink(link);
    url = next === undefined ? undefined : new URL(next, base).toString();
  }
  return changes;
}

/** A pet's quantity now. */
export async function readQuantity(base: string, key: string, petId: number): Promise<number> {
  const { body } = await getJson(`${base}/v1/inventory/${petId}`, key);
  return (body as { quantity: number }).quantity;
}

/** A reservation's state now. */
export async function readReservationState(base: string, key: string, id: string): Promise<string> {
  const { body } = await getJson(`${base}/v1/reservations/${id}`, key);
  return (body as { state: string }).state;
}
