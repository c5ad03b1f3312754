/** Where a pet stands in the store. */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export type PetStatus = (typeof PET_STATUSES)[number];

export const isPetStatus = (value: unknown): value is PetStatus =>
  value === 'available' || value === 'pending' || value === 'sold';
