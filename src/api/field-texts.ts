/**
 * What every field of every answer means, in English and French (docs/api.md#fields): the one
 * table that GET /budget/api/fields/ serves and that the OpenAPI document's field descriptions are
 * taken from (the English definitions). A key is `FIELD` (that field wherever it appears) or
 * `ENDPOINT.FIELD` (the endpoint as its path after /budget/api/, nested fields with dots), which
 * wins; a drop's drop.json `definitions` replace these texts for that drop.
 */

export interface Text {
  en: string;
  fr: string;
}

export interface FieldText {
  label: Text;
  definition: Text;
  /**
   * `amount`: in the drop's unit (units.name); `percent`: a percentage; null: no unit.
   */
  unit: 'amount' | 'percent' | null;
}

const t = (label: [string, string], definition: [string, string], unit: FieldText['unit'] = null): FieldText => ({
  label: { en: label[0], fr: label[1] },
  definition: { en: definition[0], fr: definition[1] },
  unit,
});

/** What a measure does to an amount (docs/api.md#measures-and-changes). */
const MEASURED = [
  ' With measure, the measured figure instead (percent of GDP, currency units per inhabitant, share of the total, or amount at base_year prices); null for a year without the value the measure needs.',
  ' Avec measure, le chiffre mesuré à la place (pourcentage du PIB, unités monétaires par habitant, part du total ou montant aux prix de base_year) ; null pour une année sans la valeur nécessaire.',
];
const measured = (label: [string, string], definition: [string, string]) =>
  t(label, [definition[0] + MEASURED[0], definition[1] + MEASURED[1]], 'amount');
/** The same for a figure that is a whole, not one of the parts a share divides it into (totals, the deficit: measure=share is refused there). */
const MEASURED_WHOLE = [
  ' With measure, the measured figure instead (percent of GDP, currency units per inhabitant, or amount at base_year prices); null for a year without the value the measure needs.',
  ' Avec measure, le chiffre mesuré à la place (pourcentage du PIB, unités monétaires par habitant ou montant aux prix de base_year) ; null pour une année sans la valeur nécessaire.',
];
const measuredWhole = (label: [string, string], definition: [string, string]) =>
  t(label, [definition[0] + MEASURED_WHOLE[0], definition[1] + MEASURED_WHOLE[1]], 'amount');

/** The drop's GDP of the year: what every computed ratio divides by. */
const GDP_NOTE = [
  "the drop's GDP of the same year (the row's gdp field), which may be a later estimate than the one the source divided by",
  "le PIB de la même année dans le dépôt (le champ gdp de la ligne), qui peut être une estimation plus récente que celle qu'a utilisée la source",
];

export const FIELD_TEXTS: Readonly<Record<string, FieldText>> = {
  year: t(['Year', 'Année'], ['The budget year (for a stock: its end).', "L'année budgétaire (pour un encours : sa fin)."]),
  stage: t(
    ['Stage', 'Stade'],
    [
      "What the figure is: initial (the finance law as adopted), amended (as amended by complementary laws) or outturn (executed); on a line, amendment is a complementary law's change. /budget/api/meta/ stages says what each stage covers. Null on a series whose drop gives no stages.",
      "Ce qu'est le chiffre : initial (la loi de finances adoptée), amended (modifiée par les lois complémentaires) ou outturn (exécuté) ; sur une ligne, amendment est la modification d'une loi complémentaire. /budget/api/meta/ stages dit ce que couvre chaque stade. Null sur une série dont le dépôt ne donne pas les stades.",
    ],
  ),
  source_id: t(
    ['Source', 'Source'],
    [
      'The id of the document the figure comes from (see /budget/api/sources/); null when the drop does not say.',
      "L'identifiant du document d'où vient le chiffre (voir /budget/api/sources/) ; null quand le dépôt ne le dit pas.",
    ],
  ),
  source_ids: t(
    ['Sources', 'Sources'],
    [
      'The distinct source_id of the lines summed, ascending (see /budget/api/sources/); [] when none has one.',
      "Les source_id distincts des lignes additionnées, par ordre croissant (voir /budget/api/sources/) ; [] quand aucune n'en a.",
    ],
  ),
  derived: t(
    ['Derived', 'Calculé'],
    [
      'True when the figure (on a roll-up: any line summed) was computed from published figures rather than published itself.',
      "Vrai quand le chiffre (pour un agrégat : l'une des lignes additionnées) a été calculé à partir de chiffres publiés au lieu d'être publié lui-même.",
    ],
  ),
  change: t(
    ['Change', 'Variation'],
    [
      'With change=previous_year: the figure minus the same figure of the calendar year before at the same stage (an object keyed by figure on rows of several figures); null when that year has none, has it at another stage, or has 0.',
      "Avec change=previous_year : le chiffre moins le même chiffre de l'année civile précédente au même stade (un objet par chiffre sur les lignes de plusieurs chiffres) ; null quand cette année n'en a pas, l'a à un autre stade, ou a 0.",
    ],
    // In the figure's unit: every figure a change is taken of is an amount.
    'amount',
  ),
  // outstanding-debt's row has a stock and its ratio to GDP: the change is the stock's, as docs/api.md says.
  'outstanding-debt.change': t(
    ['Change', 'Variation'],
    [
      "With change=previous_year: outstanding_debt minus the same of the calendar year before at the same stage, in the drop's unit (not the change of value, the ratio to GDP); null when that year has none, has it at another stage, or has 0.",
      "Avec change=previous_year : outstanding_debt moins celui de l'année civile précédente au même stade, dans l'unité du jeu de données (non la variation de value, le ratio au PIB) ; null quand cette année n'en a pas, l'a à un autre stade, ou a 0.",
    ],
    'amount',
  ),
  change_pct: t(
    ['Change (%)', 'Variation (%)'],
    [
      'With change=previous_year: change in percent of the year before, 2 decimals.',
      "Avec change=previous_year : la variation en pourcentage de l'année précédente, 2 décimales.",
    ],
    'percent',
  ),
  total_expenses: measuredWhole(
    ['Total expenses', 'Total des dépenses'],
    [
      "The sum of the expense lines of the stage over the filter, in the drop's unit, 3 decimals.",
      "La somme des lignes de dépenses du stade sur le filtre, dans l'unité du dépôt, 3 décimales.",
    ],
  ),
  total_resources: measuredWhole(
    ['Total resources', 'Total des ressources'],
    [
      "The sum of the resource lines of the stage over the filter, borrowing included wherever the drop's resources include it, in the drop's unit.",
      "La somme des lignes de ressources du stade sur le filtre, emprunts compris quand les ressources du dépôt les comprennent, dans l'unité du dépôt.",
    ],
  ),
  balance: measuredWhole(
    ['Balance (resources − expenses)', 'Solde (ressources − dépenses)'],
    [
      'total_resources − total_expenses. Resources include borrowing, so this is not the budget deficit or surplus: a budget whose borrowing covers its deficit balances at about 0. The deficit is /budget/api/deficit/.',
      "total_resources − total_expenses. Les ressources comprennent les emprunts : ce n'est donc ni le déficit ni l'excédent budgétaire, et un budget dont les emprunts couvrent le déficit a un solde voisin de 0. Le déficit est /budget/api/deficit/.",
    ],
  ),
  id: t(['Id', 'Identifiant'], ['The identifier, as the drop gives it.', "L'identifiant, tel que le dépôt le donne."]),
  'budget-categories.id': t(['Category id', 'Identifiant de catégorie'], ["The category's id.", "L'identifiant de la catégorie."]),
  category: t(
    ['Category', 'Catégorie'],
    ["The category's name (of the line, on expenses).", 'Le nom de la catégorie (de la ligne, pour les dépenses).'],
  ),
  type: t(
    ['Type', 'Type'],
    ['expense or resource: what the category holds.', 'expense (dépense) ou resource (ressource) : ce que la catégorie contient.'],
  ),
  parent_id: t(
    ['Parent category', 'Catégorie parente'],
    ["The parent category's id; null for a top-level category.", "L'identifiant de la catégorie parente ; null au premier niveau."],
  ),
  expenses: measured(
    ['Expenses', 'Dépenses'],
    [
      'The expense lines under the category (itself and its descendants) summed; 0 for a resource category.',
      'Les lignes de dépenses sous la catégorie (elle et ses descendantes) additionnées ; 0 pour une catégorie de ressources.',
    ],
  ),
  resources: measured(
    ['Resources', 'Ressources'],
    [
      'The resource lines under the category (itself and its descendants) summed; 0 for an expense category.',
      'Les lignes de ressources sous la catégorie (elle et ses descendantes) additionnées ; 0 pour une catégorie de dépenses.',
    ],
  ),
  amount: t(
    ['Amount', 'Montant'],
    ["The line's amount, in the drop's unit, 3 decimals.", "Le montant de la ligne, dans l'unité du dépôt, 3 décimales."],
    'amount',
  ),
  'expenses.amount': t(
    ['Amount', 'Montant'],
    [
      "The line's amount; on a tree node, the lines under the node (itself and its descendants) summed; in the drop's unit.",
      "Le montant de la ligne ; pour un nœud d'arbre, les lignes sous le nœud (lui et ses descendants) additionnées ; dans l'unité du dépôt.",
    ],
    'amount',
  ),
  'resources.amount': t(
    ['Amount', 'Montant'],
    [
      "The line's amount; on a tree node, the lines under the node (itself and its descendants) summed; in the drop's unit.",
      "Le montant de la ligne ; pour un nœud d'arbre, les lignes sous le nœud (lui et ses descendants) additionnées ; dans l'unité du dépôt.",
    ],
    'amount',
  ),
  organization: t(['Organization', 'Organisme'], ['The organization the line is charged to.', "L'organisme auquel la ligne est imputée."]),
  'expenses.organization.id': t(['Organization id', "Identifiant de l'organisme"], ["The organization's id.", "L'identifiant de l'organisme."]),
  'expenses.organization.name': t(['Organization', 'Organisme'], ["The organization's name.", "Le nom de l'organisme."]),
  'expenses.organization.code': t(['Organization code', "Code de l'organisme"], ["The organization's code.", "Le code de l'organisme."]),
  name: t(
    ['Name', 'Nom'],
    [
      'The name (of the category on a tree node, of the organization on the organization list).',
      "Le nom (de la catégorie pour un nœud d'arbre, de l'organisme pour la liste des organismes).",
    ],
  ),
  children: t(
    ['Sub-categories', 'Sous-catégories'],
    ['The sub-categories with lines under them, ordered by id.', 'Les sous-catégories ayant des lignes, par identifiant.'],
  ),
  source: t(
    ['Resource category', 'Catégorie de ressource'],
    ["The name of the line's resource category.", 'Le nom de la catégorie de ressource de la ligne.'],
  ),
  code: t(['Code', 'Code'], ["The organization's code.", "Le code de l'organisme."]),
  budget: t(
    ['Budget by year', 'Budget par année'],
    [
      "The organization's expenses and resources per year with lines of the stage, ordered by year.",
      "Les dépenses et ressources de l'organisme par année ayant des lignes du stade, par année.",
    ],
  ),
  'organization.budget.year': t(['Year', 'Année'], ['The budget year.', "L'année budgétaire."]),
  'organization.budget.expenses': t(
    ['Expenses', 'Dépenses'],
    [
      "The expense lines charged to the organization that year, in the drop's unit.",
      "Les lignes de dépenses imputées à l'organisme cette année-là, dans l'unité du dépôt.",
    ],
    'amount',
  ),
  'organization.budget.resources': t(
    ['Resources', 'Ressources'],
    [
      "The resource lines attributed to the organization that year, in the drop's unit.",
      "Les lignes de ressources attribuées à l'organisme cette année-là, dans l'unité du dépôt.",
    ],
    'amount',
  ),
  organization_id: t(
    ['Organization id', "Identifiant de l'organisme"],
    ["The organization's id (see /budget/api/organization/).", "L'identifiant de l'organisme (voir /budget/api/organization/)."],
  ),
  'organization/stats.total_expenses': measured(
    ['Total expenses', 'Total des dépenses'],
    [
      "The expense lines of the stage charged to the organization over the filter, summed, in the drop's unit.",
      "Les lignes de dépenses du stade imputées à l'organisme sur le filtre, additionnées, dans l'unité du dépôt.",
    ],
  ),
  'organization/stats.total_resources': measured(
    ['Total resources', 'Total des ressources'],
    [
      "The resource lines of the stage attributed to the organization over the filter, summed, in the drop's unit.",
      "Les lignes de ressources du stade attribuées à l'organisme sur le filtre, additionnées, dans l'unité du dépôt.",
    ],
  ),
  debt_origin: t(['Debt origin', 'Origine de la dette'], ['Where the debt comes from.', "D'où vient la dette."]),
  'debt.debt_origin.id': t(['Origin id', "Identifiant de l'origine"], ["The debt origin's id.", "L'identifiant de l'origine de la dette."]),
  'debt.debt_origin.parent': t(
    ['Parent origin', 'Origine parente'],
    ["The parent origin's id; null at the top level.", "L'identifiant de l'origine parente ; null au premier niveau."],
  ),
  'debt.debt_origin.name': t(['Origin', 'Origine'], ["The debt origin's name.", "Le nom de l'origine de la dette."]),
  'debt.value': measured(
    ['Debt', 'Dette'],
    [
      "The debt of the origin and its descendants at the end of the year, in the drop's unit.",
      "La dette de l'origine et de ses descendantes en fin d'année, dans l'unité du dépôt.",
    ],
  ),
  outstanding_debt: t(
    ['Outstanding debt', 'Encours de la dette'],
    [
      "The public debt stock at the end of the year, in the drop's unit (a forecast at the initial and amended stages).",
      "L'encours de la dette publique en fin d'année, dans l'unité du dépôt (une prévision aux stades initial et modifié).",
    ],
    'amount',
  ),
  gdp: t(
    ['GDP', 'PIB'],
    [
      "The drop's gross domestic product of the year (the same whatever the row's stage), in the drop's unit: what the ratios divide by.",
      "Le produit intérieur brut de l'année dans le dépôt (le même quel que soit le stade), dans l'unité du dépôt : ce par quoi les ratios divisent.",
    ],
    'amount',
  ),
  'outstanding-debt.value': t(
    ['Debt (% of GDP)', 'Dette (% du PIB)'],
    [
      `outstanding_debt / gdp × 100, 2 decimals: the stock divided by ${GDP_NOTE[0]}. published_value is the source's own ratio.`,
      `outstanding_debt / gdp × 100, 2 décimales : l'encours divisé par ${GDP_NOTE[1]}. published_value est le ratio de la source.`,
    ],
    'percent',
  ),
  published_value: t(
    ['Debt (% of GDP), as published', 'Dette (% du PIB), publiée'],
    [
      "The ratio to GDP as the row's source printed it, on the GDP the source used; null when the drop has none.",
      "Le ratio au PIB tel que la source de la ligne l'a imprimé, sur le PIB qu'elle a utilisé ; null quand le dépôt n'en a pas.",
    ],
    'percent',
  ),
  'deficit.value': measuredWhole(
    ['Deficit', 'Déficit'],
    [
      "The budget deficit of the year as the row's source states it, in the drop's unit (a positive number is a deficit).",
      "Le déficit budgétaire de l'année tel que la source de la ligne le chiffre, dans l'unité du dépôt (un nombre positif est un déficit).",
    ],
  ),
  percent: t(
    ['Deficit (% of GDP)', 'Déficit (% du PIB)'],
    [
      `value / gdp × 100, 2 decimals: the deficit divided by ${GDP_NOTE[0]}; it stays so under a measure. published_percent is the source's own ratio.`,
      `value / gdp × 100, 2 décimales : le déficit divisé par ${GDP_NOTE[1]} ; il reste tel quel avec measure. published_percent est le ratio de la source.`,
    ],
    'percent',
  ),
  published_percent: t(
    ['Deficit (% of GDP), as published', 'Déficit (% du PIB), publié'],
    [
      "The ratio to GDP as the row's source printed it, on the GDP the source used; null when the drop has none.",
      "Le ratio au PIB tel que la source de la ligne l'a imprimé, sur le PIB qu'elle a utilisé ; null quand le dépôt n'en a pas.",
    ],
    'percent',
  ),
  'sources.id': t(
    ['Source id', 'Identifiant de source'],
    ["The source's id, as source_id and source_ids give it.", "L'identifiant de la source, tel que source_id et source_ids le donnent."],
  ),
  title: t(['Title', 'Titre'], ['The title of the document.', 'Le titre du document.']),
  url: t(
    ['Address', 'Adresse'],
    ['Where to read the document; null when the drop has none.', "Où lire le document ; null quand le dépôt n'en a pas."],
  ),
  publisher: t(
    ['Publisher', 'Éditeur'],
    ['Who published the document; null when the drop does not say.', 'Qui a publié le document ; null quand le dépôt ne le dit pas.'],
  ),
  published: t(
    ['Published', 'Publié le'],
    [
      'When the document was published, as the drop gives it (e.g. 2024-12-20); null when it does not say.',
      "Quand le document a été publié, tel que le dépôt le donne (par ex. 2024-12-20) ; null s'il ne le dit pas.",
    ],
  ),
  quote: t(
    ['Quote', 'Citation'],
    [
      "The figure's wording in the document; null when the drop has none.",
      "La formulation du chiffre dans le document ; null quand le dépôt n'en a pas.",
    ],
  ),
};

/** The text of a field of an endpoint: `ENDPOINT.FIELD`, else `FIELD`, else the last part of a nested name. */
export function fieldText(endpoint: string, field: string): FieldText | undefined {
  return FIELD_TEXTS[`${endpoint}.${field}`] ?? FIELD_TEXTS[field];
}
