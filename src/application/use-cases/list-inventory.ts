import type { InventoryItem } from '../../domain/inventory-item.js';
import type {
  InventoryQuery,
  InventoryRepository,
  NamedInventoryItem,
  NamedInventoryQuery,
} from '../ports/inventory-repository.js';

/** listInventory: the stock levels of all pets, ordered by petId, streamed in chunks. */
export class ListInventory {
  constructor(private readonly inventory: InventoryRepository) {}

  execute(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    return this.inventory.list(query);
  }

  /** One page of the entries `query` matches, part of a name included, each with its pet's name. */
  page(query: NamedInventoryQuery): Promise<readonly NamedInventoryItem[]> {
    return this.inventory.listNamed(query);
  }

  /**
   * The store's stamp (see InventoryRepository.stamp): while it is unchanged, so is the list, and a
   * caller may answer from a copy it made at that stamp, or tag the list with it.
   */
  stamp(): Promise<string> {
    return this.inventory.stamp();
  }
}
