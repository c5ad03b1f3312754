import type { Database, Statement } from 'better-sqlite3';
import type { NamedInventoryItem, NamedInventoryQuery } from '../../application/ports/inventory-repository.js';
import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { FilteredInventoryPages, isFiltered, type PageShape } from './filtered-inventory-pages.js';

/** An entry with its pet's name and category (null, null when it has none). */
type NamedRow = readonly [
  id: bigint,
  name: string,
  categoryId: string | null,
  categoryName: string | null,
  quantity: bigint,
  status: string,
  reserved: bigint,
];

const ROWS: PageShape<NamedRow> = { select: (rows) => rows, count: (rows) => rows.length };

/** The shortest text the trigram index finds: shorter ones are looked for by a walk of the pets. */
const TRIGRAM = 3;

/** The named parameters of a page's statements. */
interface NamedParams {
  readonly size: number;
  readonly now: number;
  readonly after?: bigint;
  readonly max?: number;
  readonly text?: string;
}

/** The domain re-checks the row (the status is cast only for the type); a corrupt row throws. */
function namedItemOfRow([
  id,
  name,
  categoryId,
  categoryName,
  quantity,
  status,
  reserved,
]: NamedRow): NamedInventoryItem {
  const item = inventoryItem(id, Number(quantity), status as PetStatus, Number(reserved));
  if (categoryId === null || categoryName === null) return { ...item, name };
  return { ...item, name, category: { id: BigInt(categoryId), name: categoryName } };
}

/**
 * A trigram phrase of FTS5: the text whole, between double quotes (doubled within), so that no
 * character of it is read as the query language's.
 */
const phrase = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/**
 * Pages of entries with their pets' names. Without a name, the list's own pages (by id, or by the
 * filters' indexes: FilteredInventoryPages) read with the name's columns. With a name of three
 * characters or more, `pet_names` (an FTS5 trigram index of the names, kept by triggers: migration 12)
 * gives the matching pets in id order, and the page stops at its size: a rare name reads its own few
 * pets, a common one the first pets of the walk. A shorter name has no trigram: those pets are found by
 * a walk of the pets in id order, which stops once the page is full (one- and two-letter texts match
 * often; a rare one reads on to the end). Letter case is folded as the index folds it (Unicode), and
 * the walk folds it as JavaScript's toLowerCase does.
 */
export class NamedInventoryPages {
  private readonly filtered: FilteredInventoryPages<NamedRow>;
  private readonly statements = new Map<string, Statement<[NamedParams], NamedRow>>();

  constructor(
    private readonly db: Database,
    private readonly reserved: string,
  ) {
    db.function('name_holds', { deterministic: true }, (name, text) =>
      String(name).toLowerCase().includes(String(text)) ? 1 : 0,
    );
    this.filtered = new FilteredInventoryPages(db, this.columns(), reserved, ROWS);
  }

  page(query: NamedInventoryQuery, now: number): NamedInventoryItem[] {
    const text = query.nameContains;
    const params: NamedParams = {
      size: query.limit,
      now,
      ...(query.after === undefined ? {} : { after: query.after }),
      ...(query.maxAvailable === undefined ? {} : { max: query.maxAvailable }),
    };
    if (text === undefined && isFiltered(query)) {
      return this.filtered.page(query, query.after, query.limit, now).map(namedItemOfRow);
    }
    const kind = text === undefined ? 'all' : [...text].length >= TRIGRAM ? 'index' : 'walk';
    const bound = kind === 'index' ? phrase(text as string) : text?.toLowerCase();
    return this.statementOf(query, kind)
      .all(bound === undefined ? params : { ...params, text: bound })
      .map(namedItemOfRow);
  }

  private columns(): string {
    return `pets.id, pets.name, pets.category_id, pets.category_name, pets.quantity, pets.status, ${this.reserved}`;
  }

  private statementOf(query: NamedInventoryQuery, kind: 'all' | 'index' | 'walk'): Statement<[NamedParams], NamedRow> {
    const key = `${kind}|${query.statuses?.join(',') ?? ''}|${query.maxAvailable !== undefined}|${query.after !== undefined}`;
    let statement = this.statements.get(key);
    if (statement === undefined) {
      statement = this.db.prepare<[NamedParams], NamedRow>(this.text(query, kind)).raw();
      this.statements.set(key, statement);
    }
    return statement;
  }

  private text(query: NamedInventoryQuery, kind: 'all' | 'index' | 'walk'): string {
    const where: string[] = [];
    if (query.after !== undefined) where.push('pets.id > @after');
    // PetStatus names the edge checked, written into the text (as FilteredInventoryPages does).
    if (query.statuses !== undefined) where.push(`pets.status IN (${query.statuses.map((s) => `'${s}'`).join(', ')})`);
    if (query.maxAvailable !== undefined) {
      where.push(`pets.quantity - pets.held <= @max AND (pets.held = 0 OR pets.quantity - (${this.reserved}) <= @max)`);
    }
    if (kind === 'walk') where.push('name_holds(pets.name, @text)');
    if (kind === 'index') {
      // The index's rowid bound as well, so that FTS5 starts its walk there, in rowid order.
      if (query.after !== undefined) where.push('pet_names.rowid > @after');
      where.push('pet_names MATCH @text');
    }
    const from = kind === 'index' ? 'pet_names JOIN pets ON pets.id = pet_names.rowid' : 'pets';
    const order = kind === 'index' ? 'pet_names.rowid' : 'pets.id';
    const condition = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
    return `SELECT ${this.columns()} FROM ${from} ${condition} ORDER BY ${order} LIMIT @size`;
  }
}
