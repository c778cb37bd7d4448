/** Every data endpoint, in the order the index and the OpenAPI document list them. */
import { budgetCategories } from './categories.js';
import { debt, deficit, outstandingDebt } from './debt.js';
import type { Endpoint } from './endpoint.js';
import { expenses, resources } from './lines.js';
import { organizations, organizationStats } from './organizations.js';
import { sources } from './sources.js';
import { totals } from './totals.js';

export type { Bound, Endpoint, Variant } from './endpoint.js';
export { withDeprecations } from './endpoint.js';

export const ENDPOINTS: readonly Endpoint[] = [
  totals,
  budgetCategories,
  expenses,
  resources,
  organizations,
  organizationStats,
  debt,
  outstandingDebt,
  deficit,
  sources,
];
