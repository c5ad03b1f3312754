import { type ApiSession, SessionEnded } from './api-session.js';
import type { Note } from './console-state.js';
import { plainRefusal } from './plain-words.js';

/** The query of the list as the page's filters stand. */
type ListQuery = { status?: string[]; maxAvailable?: number; q?: string };

/**
 * Downloads GET /v1/inventory.csv for the filters: every page, streamed by the service, read here a
 * piece at a time so the page can say how many pets so far, then saved as a file. The key goes in the
 * Authorization header, as for every request, never in a URL.
 */
export async function exportCsv(
  session: ApiSession,
  query: ListQuery,
  progress: (pets: number) => void,
): Promise<Note> {
  const params = new URLSearchParams();
  if (query.status !== undefined) params.set('status', query.status.join(','));
  if (query.maxAvailable !== undefined) params.set('maxAvailable', String(query.maxAvailable));
  if (query.q !== undefined) params.set('q', query.q);
  const url = new URL(`v1/inventory.csv${params.size === 0 ? '' : `?${params}`}`, document.baseURI);
  if (session.paused) return { kind: 'refused', text: 'Not exported: the service asks us to wait. Try again later.' };
  try {
    const response = await session.download(url);
    if (!response.ok) return { kind: 'refused', text: `Not exported. ${plainRefusal(await response.json())}` };
    const parts: BlobPart[] = [];
    let lines = 0;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value as Uint8Array<ArrayBuffer>);
      for (const byte of value) if (byte === 10) lines += 1;
      progress(Math.max(0, lines - 1));
    }
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob(parts, { type: 'text/csv' }));
    link.download = `inventory-${new Date().toISOString().slice(0, 10)}.csv`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    const pets = Math.max(0, lines - 1);
    return { kind: 'done', text: `Exported ${pets} ${pets === 1 ? 'pet' : 'pets'} to ${link.download}.` };
  } catch (error) {
    if (error instanceof SessionEnded) return { kind: 'refused', text: 'Export stopped: signed out.' };
    return { kind: 'refused', text: 'Not exported: the service cannot be reached. Try again.' };
  }
}
