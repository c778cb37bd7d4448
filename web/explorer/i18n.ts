/** Labels in English and French, and numbers formatted for the reader's language. */
import { STAGE_LABELS } from '../../src/domain/stages.js';

export type Lang = 'en' | 'fr';
export const LANGS: readonly Lang[] = ['en', 'fr'];

/** `stage.initial` and the like, from the one list of stages. */
function stageLabels() {
  type Keyed = { [K in keyof typeof STAGE_LABELS as `stage.${K}`]: (typeof STAGE_LABELS)[K] };
  return Object.fromEntries(Object.entries(STAGE_LABELS).map(([stage, label]) => [`stage.${stage}`, label])) as Keyed;
}

const LABELS = {
  title: { en: 'Budget explorer', fr: 'Explorateur du budget' },
  subtitle: {
    en: 'The state budget at a glance, drawn from this service’s public API. Every chart links to the data behind it.',
    fr: 'Le budget de l’État en un coup d’œil, tiré de l’API publique de ce service. Chaque graphique renvoie aux données qui le fondent.',
  },
  skip: { en: 'Skip to the charts', fr: 'Aller aux graphiques' },
  year: { en: 'Year', fr: 'Année' },
  measure: { en: 'Measure', fr: 'Mesure' },
  stage: { en: 'Stage', fr: 'Étape' },
  language: { en: 'Français', fr: 'English' },
  languageName: { en: 'Lire en français', fr: 'Read in English' },
  views: { en: 'Views', fr: 'Vues' },
  'view.overview': { en: 'Overview', fr: 'Vue d’ensemble' },
  'view.expenses': { en: 'Expenses', fr: 'Dépenses' },
  'view.resources': { en: 'Resources', fr: 'Ressources' },
  'view.organizations': { en: 'Organizations', fr: 'Organismes' },
  'view.debt': { en: 'Debt', fr: 'Dette' },
  'measure.nominal': { en: 'Current dinars', fr: 'Dinars courants' },
  'measure.real': { en: 'Real terms', fr: 'Termes réels' },
  'measure.pct_gdp': { en: '% of GDP', fr: '% du PIB' },
  'measure.per_capita': { en: 'Per inhabitant', fr: 'Par habitant' },
  'stage.default': { en: 'Default (latest law or outturn)', fr: 'Par défaut (dernière loi ou exécution)' },
  ...stageLabels(),
  'totals.title': { en: 'Expenses, resources and balance over the years', fr: 'Dépenses, ressources et solde au fil des ans' },
  'totals.expensesAmended': { en: 'Expenses (amended law)', fr: 'Dépenses (loi rectifiée)' },
  'totals.expensesInitial': { en: 'Expenses (initial law)', fr: 'Dépenses (loi initiale)' },
  'totals.resourcesAmended': { en: 'Resources (amended law)', fr: 'Ressources (loi rectifiée)' },
  'totals.resourcesInitial': { en: 'Resources (initial law)', fr: 'Ressources (loi initiale)' },
  'totals.balanceAmended': { en: 'Balance (amended law)', fr: 'Solde (loi rectifiée)' },
  'totals.balanceInitial': { en: 'Balance (initial law)', fr: 'Solde (loi initiale)' },
  'totals.expensesOutturn': { en: 'Expenses (outturn)', fr: 'Dépenses (exécution)' },
  'totals.resourcesOutturn': { en: 'Resources (outturn)', fr: 'Ressources (exécution)' },
  'totals.summary': {
    en: 'In {year}, the amended law plans {expenses} of expenses and {resources} of resources: a balance of {balance}.',
    fr: 'En {year}, la loi rectifiée prévoit {expenses} de dépenses et {resources} de ressources, soit un solde de {balance}.',
  },
  'ratios.title': { en: 'Deficit and outstanding debt, % of GDP', fr: 'Déficit et encours de la dette, en % du PIB' },
  'ratios.deficit': { en: 'Deficit (% of GDP)', fr: 'Déficit (% du PIB)' },
  'ratios.debt': { en: 'Outstanding debt (% of GDP)', fr: 'Encours de la dette (% du PIB)' },
  'ratios.summary': {
    en: 'In {year}: deficit {deficit} of GDP, outstanding debt {debt} of GDP.',
    fr: 'En {year} : déficit de {deficit} du PIB, encours de la dette de {debt} du PIB.',
  },
  'tree.expenses': { en: 'Expenses by category, {year}', fr: 'Dépenses par catégorie, {year}' },
  'tree.resources': { en: 'Resources by category, {year}', fr: 'Ressources par catégorie, {year}' },
  'tree.direct': { en: 'Recorded at this level', fr: 'Inscrit à ce niveau' },
  'tree.all': { en: 'All categories', fr: 'Toutes les catégories' },
  'tree.summary': { en: '{name}: {amount}, in {count} parts.', fr: '{name} : {amount}, en {count} parties.' },
  'tree.open': { en: 'Open {name}', fr: 'Ouvrir {name}' },
  'tree.hint': {
    en: 'Choose a category with children (▸) to see its parts; the path above goes back up.',
    fr: 'Choisissez une catégorie qui a des sous-catégories (▸) pour en voir le détail ; le chemin ci-dessus permet de remonter.',
  },
  'orgs.title': { en: 'Organizations ranked by expenses, {year}', fr: 'Organismes classés par dépenses, {year}' },
  'orgs.summary': {
    en: 'Organizations with lines in {year}: {count}. The largest: {name} ({amount}).',
    fr: 'Organismes ayant des lignes en {year} : {count}. Le premier : {name} ({amount}).',
  },
  'orgs.choose': { en: 'Show its budget over the years', fr: 'Voir son budget au fil des ans' },
  'org.title': { en: '{name}: budget over the years', fr: '{name} : budget au fil des ans' },
  'org.hint': { en: 'Choose an organization in the table above.', fr: 'Choisissez un organisme dans le tableau ci-dessus.' },
  'debt.title': { en: 'Debt by origin, {year}', fr: 'Dette par origine, {year}' },
  'debt.all': { en: 'All origins', fr: 'Toutes les origines' },
  'debt.summary': { en: '{name}: {amount}, in {count} origins.', fr: '{name} : {amount}, en {count} origines.' },
  'col.year': { en: 'Year', fr: 'Année' },
  'col.name': { en: 'Name', fr: 'Nom' },
  'col.category': { en: 'Category', fr: 'Catégorie' },
  'col.origin': { en: 'Origin', fr: 'Origine' },
  'col.organization': { en: 'Organization', fr: 'Organisme' },
  'col.rank': { en: 'Rank', fr: 'Rang' },
  'col.amount': { en: 'Amount', fr: 'Montant' },
  'col.share': { en: 'Share', fr: 'Part' },
  'col.expenses': { en: 'Expenses', fr: 'Dépenses' },
  'col.resources': { en: 'Resources', fr: 'Ressources' },
  'col.stage': { en: 'Stage', fr: 'Étape' },
  'col.source': { en: 'Source', fr: 'Source' },
  table: { en: 'Data table', fr: 'Tableau des données' },
  unit: { en: 'Unit: {unit}', fr: 'Unité : {unit}' },
  'unit.real': { en: '{unit}, {year} prices', fr: '{unit}, prix de {year}' },
  'unit.perCapita': { en: '{currency} per inhabitant', fr: '{currency} par habitant' },
  noData: { en: 'No data for this view in the drop being served.', fr: 'Pas de données pour cette vue dans le jeu de données servi.' },
  noDataYear: { en: 'No data for {year} in the drop being served.', fr: 'Pas de données pour {year} dans le jeu de données servi.' },
  loadFailed: { en: 'Could not load this chart: {detail}', fr: 'Impossible de charger ce graphique : {detail}' },
  yearsWithData: { en: 'Years with data:', fr: 'Années avec des données :' },
  loading: { en: 'Loading…', fr: 'Chargement…' },
  dataSource: { en: 'Data: {source}, version {version}.', fr: 'Données : {source}, version {version}.' },
  apiLink: { en: 'API', fr: 'API' },
  csvLink: { en: 'CSV', fr: 'CSV' },
  footer: { en: 'API index, documentation and downloads:', fr: 'Index de l’API, documentation et téléchargements :' },
  docs: { en: 'API documentation', fr: 'Documentation de l’API' },
  measureNotApplied: { en: 'This chart is in current terms: its endpoint has no measure.', fr: 'Ce graphique est en termes courants : son point d’accès n’a pas de mesure.' },
} as const satisfies Record<string, Record<Lang, string>>;

export type LabelKey = keyof typeof LABELS;

export function t(lang: Lang, key: LabelKey, values: Record<string, string | number> = {}): string {
  return LABELS[key][lang].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? `{${name}}`));
}

const LOCALES: Record<Lang, string> = { en: 'en-GB', fr: 'fr-FR' };

export interface Formatter {
  /** An amount, with its unit when given: "12 345,6 MDT". */
  amount(value: number | null | undefined, unit?: string): string;
  /** A percentage given in percent (12.34): "12,34 %" or "12.34%". */
  percent(value: number | null | undefined): string;
  /** A short tick label for an axis. */
  tick(value: number): string;
}

export function formatter(lang: Lang): Formatter {
  const locale = LOCALES[lang];
  const amount = new Intl.NumberFormat(locale, { maximumFractionDigits: 3 });
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 });
  const tick = new Intl.NumberFormat(locale, { maximumFractionDigits: 2, notation: 'compact' });
  const none = '—';
  return {
    amount: (value, unit) => (value == null ? none : unit ? `${amount.format(value)} ${unit}` : amount.format(value)),
    percent: (value) => (value == null ? none : percent.format(value / 100)),
    tick: (value) => tick.format(value),
  };
}
