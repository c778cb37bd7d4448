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
  // Any drop's currency: the sample's dinars, or another's.
  'measure.nominal': { en: 'Current prices', fr: 'Prix courants' },
  'measure.real': { en: 'Real terms', fr: 'Termes réels' },
  'measure.pct_gdp': { en: '% of GDP', fr: '% du PIB' },
  'measure.per_capita': { en: 'Per inhabitant', fr: 'Par habitant' },
  'stage.default': { en: 'Default', fr: 'Par défaut' },
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
  'deficit.title': { en: 'The deficit', fr: 'Le déficit' },
  'deficit.headline': { en: 'In {year}, the deficit is {amount}', fr: 'En {year}, le déficit est de {amount}' },
  'deficit.surplus.neutral': { en: 'In {year}, the budget shows a surplus of {amount}', fr: 'En {year}, le budget présente un excédent de {amount}' },
  'ratios.in': { en: 'In {year}: {parts}.', fr: 'En {year} : {parts}.' },
  'ratios.deficitOf': { en: 'deficit {value} of GDP', fr: 'déficit de {value} du PIB' },
  'ratios.surplusOf': { en: 'surplus {value} of GDP', fr: 'excédent de {value} du PIB' },
  'ratios.debtOf': { en: 'outstanding debt {value} of GDP', fr: 'encours de la dette de {value} du PIB' },
  'ratios.noDeficit': { en: 'no deficit figure', fr: 'pas de chiffre de déficit' },
  'ratios.noDebt': { en: 'no outstanding-debt figure', fr: 'pas de chiffre d’encours de la dette' },
  'deficit.headlineOutturn': { en: 'In {year}, the deficit was {amount}', fr: 'En {year}, le déficit a été de {amount}' },
  'deficit.headlineLaw': { en: 'In {year}, the {stage} plans a deficit of {amount}', fr: 'En {year}, la {stage} prévoit un déficit de {amount}' },
  'deficit.surplusOutturn': {
    en: 'In {year}, the budget ended with a surplus of {amount}',
    fr: 'En {year}, le budget s’est soldé par un excédent de {amount}',
  },
  'deficit.surplusLaw': { en: 'In {year}, the {stage} plans a surplus of {amount}', fr: 'En {year}, la {stage} prévoit un excédent de {amount}' },
  'deficit.ofGdp': { en: '{percent} of GDP', fr: '{percent} du PIB' },
  'deficit.forecast': {
    en: 'A forecast: the drop has no outturn for this year yet.',
    fr: 'Une prévision : le jeu de données n’a pas encore d’exécution pour cette année.',
  },
  'deficit.none': {
    en: 'No deficit figure for {year} in the drop being served.',
    fr: 'Pas de chiffre de déficit pour {year} dans le jeu de données servi.',
  },
  'deficit.series': { en: 'Deficit', fr: 'Déficit' },
  'deficit.surplus': { en: 'Surplus', fr: 'Excédent' },
  'deficit.name.initial': { en: 'initial finance law', fr: 'loi de finances initiale' },
  'deficit.name.amended': { en: 'amended finance law', fr: 'loi de finances rectificative' },
  'financing.title': {
    en: 'How spending is financed: own resources and borrowing',
    fr: 'Comment la dépense est financée : ressources propres et emprunt',
  },
  'financing.expenses': { en: 'Expenses', fr: 'Dépenses' },
  'financing.tax': { en: 'Tax revenue', fr: 'Recettes fiscales' },
  'financing.nontax': { en: 'Non-tax revenue', fr: 'Recettes non fiscales' },
  'financing.grants': { en: 'Grants', fr: 'Dons' },
  'financing.ownOther': { en: 'Other own resources', fr: 'Autres ressources propres' },
  'financing.own': { en: 'Own resources', fr: 'Ressources propres' },
  'financing.borrowing': { en: 'Borrowing', fr: 'Emprunts' },
  'financing.other': { en: 'Resources not classified', fr: 'Ressources non classées' },
  'financing.summary': {
    en: 'In {year} ({stage}): expenses {expenses}; own resources {own}, {share} of expenses; borrowing {borrowing}.',
    fr: 'En {year} ({stage}) : dépenses {expenses} ; ressources propres {own}, soit {share} des dépenses ; emprunts {borrowing}.',
  },
  'financing.summaryNoBorrowing': {
    en: 'In {year} ({stage}): expenses {expenses}; own resources {own}, {share} of expenses; no borrowing line among the resources.',
    fr: 'En {year} ({stage}) : dépenses {expenses} ; ressources propres {own}, soit {share} des dépenses ; aucune ligne d’emprunt parmi les ressources.',
  },
  'financing.noResources': {
    en: 'In {year} ({stage}): the drop has expense lines but no resource lines: no financing figure for this year.',
    fr: 'En {year} ({stage}) : le jeu de données a des lignes de dépenses mais pas de lignes de ressources : pas de chiffre de financement pour cette année.',
  },
  'financing.noExpenses': {
    en: 'In {year} ({stage}): the drop has resource lines but no expense lines: no expense figure for this year.',
    fr: 'En {year} ({stage}) : le jeu de données a des lignes de ressources mais pas de lignes de dépenses : pas de chiffre de dépenses pour cette année.',
  },
  'financing.rule': {
    en: 'Resource categories are sorted by name: borrowing (emprunt, loan, trésorerie…), tax, non-tax, grants; what no rule places is shown as not classified.',
    fr: 'Les catégories de ressources sont classées selon leur nom : emprunts (emprunt, trésorerie…), fiscal, non fiscal, dons ; ce qu’aucune règle ne classe est montré comme non classé.',
  },
  'financing.balance': {
    en: 'Balance as totals/ computes it, {year}: {balance}. It is resources including borrowing minus expenses, so it is not the deficit.',
    fr: 'Solde calculé par totals/, {year} : {balance}. C’est ressources, emprunts compris, moins dépenses : ce n’est pas le déficit.',
  },
  'col.forecast': { en: 'forecast', fr: 'prévision' },
  noFigure: { en: 'no data', fr: 'pas de données' },
  forecastNote: {
    en: 'Hollow points and pale bars are forecasts: a law’s figure for a year after the latest outturn in the drop ({year}).',
    fr: 'Les points creux et les barres pâles sont des prévisions : le chiffre d’une loi pour une année postérieure à la dernière exécution du jeu de données ({year}).',
  },
  stagesApart: {
    en: 'Stages that do not cover the same scope are drawn as separate lines: {stages}.',
    fr: 'Les étapes qui ne couvrent pas le même périmètre sont tracées séparément : {stages}.',
  },
  knownGap: { en: 'Known gap, {years}{stage}: {reason}', fr: 'Lacune connue, {years}{stage} : {reason}' },
  sources: { en: 'Sources:', fr: 'Sources :' },
  sourcesMore: { en: 'and {count} more', fr: 'et {count} autres' },
  dataVersion: { en: 'Data: version {version} of the drop served.', fr: 'Données : version {version} du jeu servi.' },
  embed: { en: 'Embed', fr: 'Intégrer' },
  png: { en: 'PNG', fr: 'PNG' },
  cite: { en: 'Cite', fr: 'Citer' },
  citeLabel: {
    en: 'The permanent address of these figures: it answers the same figures after the data is updated',
    fr: 'L’adresse permanente de ces chiffres : elle donne les mêmes chiffres après une mise à jour des données',
  },
  pngLabel: { en: 'Download this chart as a PNG image', fr: 'Télécharger ce graphique en image PNG' },
  embedSnippet: { en: 'Copy this code to put the chart in a page:', fr: 'Copiez ce code pour insérer le graphique dans une page :' },
  embedOpen: { en: 'Open in the explorer', fr: 'Ouvrir dans l’explorateur' },
  embedMissing: { en: 'This chart does not exist in this view: {chart}.', fr: 'Ce graphique n’existe pas dans cette vue : {chart}.' },
  basis: { en: '{stage}: {basis}', fr: '{stage} : {basis}' },
  basesTitle: { en: 'What each stage covers', fr: 'Ce que couvre chaque étape' },
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
  'tree.summaryOne': { en: '{name}: {amount}, in 1 part.', fr: '{name} : {amount}, en 1 partie.' },
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
  'debt.summaryOne': { en: '{name}: {amount}, from 1 origin.', fr: '{name} : {amount}, d’une origine.' },
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
  'unit.ofGdp': { en: 'of GDP', fr: 'du PIB' },
  'unit.perCapita': { en: '{currency} per inhabitant', fr: '{currency} par habitant' },
  // A drop that states no units: its amounts are shown bare, and the unit said to be unknown.
  'unit.unstated': { en: 'not stated by the data', fr: 'non précisée par les données' },
  'unit.realUnstated': { en: '{year} prices', fr: 'prix de {year}' },
  noData: { en: 'No data for this view in the drop being served.', fr: 'Pas de données pour cette vue dans le jeu de données servi.' },
  // A measure's figure is null where the drop lacks the series it needs that year: the sentence names it.
  noMeasureFigure: {
    en: 'No figure for {year} {measure}: the drop has no {series} for {year}.',
    fr: 'Pas de chiffre pour {year} {measure} : le jeu de données n’a pas {series} pour {year}.',
  },
  'measureIn.pct_gdp': { en: 'in % of GDP', fr: 'en % du PIB' },
  'measureIn.per_capita': { en: 'per inhabitant', fr: 'par habitant' },
  'measureIn.real': { en: 'in real terms', fr: 'en termes réels' },
  'series.pct_gdp': { en: 'GDP', fr: 'de PIB' },
  'series.per_capita': { en: 'population figure', fr: 'de chiffre de population' },
  'series.real': { en: 'consumer price index', fr: 'd’indice des prix à la consommation' },
  noDataYear: { en: 'No data for {year} in the drop being served.', fr: 'Pas de données pour {year} dans le jeu de données servi.' },
  noDataStage: {
    en: 'No data for {year} at the stage shown ({stage}); {year} has figures of: {stages}.',
    fr: 'Pas de données pour {year} à l’étape affichée ({stage}) ; {year} a des chiffres de : {stages}.',
  },
  yearReplaced: {
    en: 'The drop has no data for {asked}: showing {year} instead.',
    fr: 'Le jeu de données n’a pas de données pour {asked} : voici {year} à la place.',
  },
  loadFailed: { en: 'Could not load this chart: {detail}', fr: 'Impossible de charger ce graphique : {detail}' },
  yearsWithData: { en: 'Years with data:', fr: 'Années avec des données :' },
  loading: { en: 'Loading…', fr: 'Chargement…' },
  dataSource: { en: 'Data: {source}, version {version}.', fr: 'Données : {source}, version {version}.' },
  apiLink: { en: 'API', fr: 'API' },
  csvLink: { en: 'CSV', fr: 'CSV' },
  footer: { en: 'API index, documentation and downloads:', fr: 'Index de l’API, documentation et téléchargements :' },
  docs: { en: 'API documentation', fr: 'Documentation de l’API' },
  measureNotApplied: {
    en: 'This chart is in current terms: its endpoint has no measure.',
    fr: 'Ce graphique est en termes courants : son point d’accès n’a pas de mesure.',
  },
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
