/**
 * What the sample drop's stages cover, the gaps it knows of, and the fields whose meaning needs
 * the Tunisian documents' own wording: the drop.json `stages`, `known_gaps` and `definitions` of
 * the sample (docs/data-drops.md#dropjson). Every statement here is one of data/SOURCES.md
 * ("Stages", "Deficit before 2020", "Coverage per year", "Left out").
 */
import type { Manifest } from '../src/data/manifest.js';

export const stages: NonNullable<Manifest['stages']> = {
  initial: {
    label: { en: 'Finance law as adopted', fr: 'Loi de finances initiale' },
    basis: {
      en:
        'The finance law as adopted (LF), or its draft (PLF) where the adopted figure of an item was not published. ' +
        'Lines cover the whole State budget: expenses include debt principal and Treasury loans, resources include ' +
        'borrowing, so the two sides are equal and balance is about 0. Deficit: the law\u2019s Article-1 result after ' +
        'grants (2021\u20132025); 2016 is excluding grants. Debt stock: the law\u2019s forecast of the year-end stock.',
      fr:
        'La loi de finances adoptée (LF), ou son projet (PLF) là où le chiffre adopté d\u2019un poste n\u2019a pas été ' +
        'publié. Les lignes couvrent tout le budget de l\u2019État : les dépenses comprennent le principal de la dette ' +
        'et les prêts du Trésor, les ressources comprennent les emprunts, de sorte que les deux côtés sont égaux et ' +
        'que le solde est voisin de 0. Déficit : le résultat de l\u2019article 1 de la loi après dons (2021\u20132025) ; ' +
        '2016 hors dons. Encours de la dette : la prévision de la loi pour la fin de l\u2019année.',
    },
    comparable_with: ['amended'],
  },
  amended: {
    label: { en: 'Finance law as amended', fr: 'Loi de finances modifiée' },
    basis: {
      en:
        'The initial law plus the changes of the complementary laws in the drop (2020, 2021, 2022; those of 2019 and ' +
        '2023 are not in it): the same scope as the initial law. Deficit and debt stock: the complementary law\u2019s ' +
        'own figure.',
      fr:
        'La loi initiale et les modifications des lois de finances complémentaires du dépôt (2020, 2021, 2022 ; celles ' +
        'de 2019 et 2023 n\u2019y sont pas) : le même périmètre que la loi initiale. Déficit et encours : le chiffre de ' +
        'la loi complémentaire elle-même.',
    },
    comparable_with: ['initial'],
  },
  outturn: {
    label: { en: 'Outturn (executed)', fr: 'Exécution' },
    basis: {
      en:
        'The Ministry of Finance\u2019s execution figures. Lines (2019\u20132024): expenses excluding debt principal, ' +
        'own resources only (no borrowing), so balance is minus the deficit before financing, as rounded by the ' +
        'Ministry; not comparable with the law\u2019s totals. Deficit: the Ministry\u2019s outturn deficit, on its own ' +
        'perimeter (larger than that difference). Debt stock: the stock at the end of the year.',
      fr:
        'Les chiffres d\u2019exécution du ministère des Finances. Lignes (2019\u20132024) : dépenses hors principal de ' +
        'la dette, ressources propres seulement (sans les emprunts), de sorte que le solde est l\u2019opposé du déficit ' +
        'avant financement, arrondi par le ministère ; non comparables aux totaux de la loi. Déficit : le déficit ' +
        'd\u2019exécution du ministère, sur son propre périmètre (plus grand que cette différence). Encours : le stock ' +
        'de fin d\u2019année.',
    },
    comparable_with: [],
  },
};

const gap = (table: string, stage: string | null, years: number[], en: string, fr: string) => ({ table, stage, years, reason: { en, fr } });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export const knownGaps: NonNullable<Manifest['known_gaps']> = [
  ...['expenses', 'resources'].map((table) =>
    gap(
      table,
      'amendment',
      [2019, 2023],
      'The complementary laws of 2019 and 2023 are not in the drop: the articles of the LFC 2019 were not found, and the LFR 2023 figures exist only as rounded third-party summaries that contradict each other. The amended stage of these years is the initial law.',
      'Les lois de finances complémentaires de 2019 et 2023 ne sont pas dans le dépôt : les articles de la LFC 2019 n\u2019ont pas été trouvés, et les chiffres de la LFR 2023 n\u2019existent qu\u2019en résumés arrondis et contradictoires. Le stade modifié de ces années est la loi initiale.',
    ),
  ),
  ...['expenses', 'resources'].map((table) =>
    gap(
      table,
      null,
      range(2010, 2015),
      'No budget lines before 2016: only scattered fragments were published for 2010\u20132015.',
      'Pas de lignes budgétaires avant 2016 : seuls des fragments épars ont été publiés pour 2010\u20132015.',
    ),
  ),
  gap(
    'expenses',
    'initial',
    range(2017, 2025),
    'No complete table by mission was found for these years. The missions the sources give are lines of their own; the rest of each year\u2019s mission credits is one derived line, \u201cAutres missions (non itemisées dans les sources)\u201d (2017 7 889,9; 2018 5 093,7; 2019 11 710,6; 2020 16 454,8; 2021 11 531,8; 2022 18 465,2; 2023 30 803,4; 2024 13 891,3; 2025 4 555,4 MDT). 2023 has only 6 missions: the LF 2023 figures of Interior, Defence, Health, Agriculture, Justice and Trade were published only as percentage changes.',
    'Aucun tableau complet par mission n\u2019a été trouvé pour ces années. Les missions que donnent les sources sont des lignes à part ; le reste des crédits des missions de chaque année est une ligne calculée, \u00ab Autres missions (non itemisées dans les sources) \u00bb (2017 7 889,9 ; 2018 5 093,7 ; 2019 11 710,6 ; 2020 16 454,8 ; 2021 11 531,8 ; 2022 18 465,2 ; 2023 30 803,4 ; 2024 13 891,3 ; 2025 4 555,4 MDT). 2023 n\u2019a que 6 missions : les chiffres LF 2023 de l\u2019Intérieur, de la Défense, de la Santé, de l\u2019Agriculture, de la Justice et du Commerce n\u2019ont été publiés qu\u2019en variations.',
  ),
  gap(
    'expenses',
    'initial',
    range(2016, 2025),
    'Expense lines are by mission, and the sources give a mission\u2019s total (2016: and its development part), not its split by nature: salaries, operating costs, subsidies and investment are not lines (the whole State\u2019s figures are in data/sources/reference/expenses_by_nature.csv). Only the debt service (interest, principal), Treasury loans and unforeseen expenses keep their own categories.',
    'Les lignes de dépenses sont par mission, et les sources donnent le total d\u2019une mission (2016 : et sa part de développement), pas sa ventilation par nature : rémunérations, fonctionnement, subventions et investissement ne sont pas des lignes (les chiffres de l\u2019État entier sont dans data/sources/reference/expenses_by_nature.csv). Seuls le service de la dette (intérêts, principal), les prêts du Trésor et les dépenses imprévues gardent leurs catégories.',
  ),
  gap(
    'expenses',
    'initial',
    [2021, 2022],
    'The interest on the debt (the financing mission) of the finance laws 2021 and 2022 was not published: it is inside the \u201cAutres missions\u201d line of those years, and the debt service organization has the principal only.',
    'Les intérêts de la dette (mission des dépenses de financement) des lois de finances 2021 et 2022 n\u2019ont pas été publiés : ils sont dans la ligne \u00ab Autres missions \u00bb de ces années, et l\u2019organisation du service de la dette n\u2019a que le principal.',
  ),
  gap(
    'expenses',
    'amendment',
    [2020, 2021, 2022],
    'The complementary laws\u2019 changes are not split by mission (only a few missions\u2019 amended figures were published): they sit on \u201cÉtat \u2014 non réparti par mission\u201d, except the changes to debt principal.',
    'Les modifications des lois de finances complémentaires ne sont pas ventilées par mission (seuls quelques chiffres révisés de missions ont été publiés) : elles sont sur \u00ab État \u2014 non réparti par mission \u00bb, sauf celles du principal de la dette.',
  ),
  gap(
    'expenses',
    'initial',
    [2016],
    'The 2016 mission table (Al Bawsala) is the draft\u2019s: only one change made at the vote is known, the 200 MDT added to Defence (2 094,824 to 2 294,824), which is a line of its own; other changes at the vote, if any, are not in the sources.',
    'Le tableau des missions 2016 (Al Bawsala) est celui du projet : une seule modification du vote est connue, les 200 MDT ajoutés à la Défense (de 2 094,824 à 2 294,824), qui sont une ligne à part ; d\u2019autres modifications au vote, s\u2019il y en a eu, ne sont pas dans les sources.',
  ),
  ...['expenses', 'resources'].map((table) =>
    gap(
      table,
      'outturn',
      [2016, 2017, 2018],
      'Outturn lines start in 2019: the execution figures of 2016\u20132018 on the same basis were not found.',
      'Les lignes d\u2019exécution commencent en 2019 : les chiffres d\u2019exécution de 2016\u20132018 sur la même base n\u2019ont pas été trouvés.',
    ),
  ),
  gap(
    'deficit',
    'initial',
    [2017, 2018, 2019],
    'The law\u2019s deficits of 2017\u20132019 exist (LF 2017 5 345, LF 2018 5 216, PLF 2019 4 512) but no source states their definition (with or without grants and privatisation receipts), so they are left out.',
    'Les déficits de la loi 2017\u20132019 existent (LF 2017 5 345, LF 2018 5 216, PLF 2019 4 512) mais aucune source n\u2019en donne la définition (avec ou sans dons et recettes de privatisation) : ils sont écartés.',
  ),
  gap(
    'outstanding_debt',
    'outturn',
    [2011, 2012, 2015, 2018],
    'No year-end debt stock of these years was found in the sources.',
    'Aucun encours de fin d\u2019année de ces années n\u2019a été trouvé dans les sources.',
  ),
  gap(
    'debt',
    'outturn',
    [2010, 2013, 2016, 2019],
    'The debt stock of these years is known, but not its split by origin at the year end.',
    'L\u2019encours de ces années est connu, mais pas sa répartition par origine en fin d\u2019année.',
  ),
  gap(
    'population',
    null,
    range(2010, 2015),
    'No population before 2016. For 2016\u20132025 the series is one INS basis, the projection 2014\u20132044 made before the 2024 census, because INS estimates at 1 July exist for 2018\u20132024 only. It runs above the estimates (2018 +0,4 %, 2023 +3,0 %) and above the 2024 census (12 336 026 against 11 972 169): per-inhabitant figures are that much lower.',
    'Pas de population avant 2016. Pour 2016\u20132025 la série est une seule base INS, la projection 2014\u20132044 faite avant le recensement de 2024, parce que les estimations INS au 1er juillet n\u2019existent que pour 2018\u20132024. Elle dépasse les estimations (2018 +0,4 %, 2023 +3,0 %) et le recensement de 2024 (12 336 026 contre 11 972 169) : les chiffres par habitant sont d\u2019autant plus bas.',
  ),
];

export const definitions: NonNullable<Manifest['definitions']> = {
  'deficit.value': {
    en:
      'The State budget deficit as the document cited states it, as a positive number. Law stages: the Article-1 result ' +
      'after grants and confiscations (2020\u20132025); 2016 initial is excluding grants, privatisation receipts and ' +
      'confiscations. Outturn: the Ministry of Finance\u2019s execution figure, on its own perimeter.',
    fr:
      'Le déficit du budget de l\u2019État tel que le document cité le chiffre, en nombre positif. Stades de la loi : le ' +
      'résultat de l\u2019article 1 après dons et confiscations (2020\u20132025) ; 2016 initial hors dons, recettes de ' +
      'privatisation et confiscations. Exécution : le chiffre d\u2019exécution du ministère des Finances, sur son propre périmètre.',
  },
  'outstanding-debt.outstanding_debt': {
    en: 'The central government\u2019s public debt stock at the end of the year (encours de la dette publique, Ministry of Finance); initial and amended rows are the law\u2019s forecast.',
    fr: 'L\u2019encours de la dette publique de l\u2019administration centrale en fin d\u2019année (ministère des Finances) ; les lignes initiale et modifiée sont la prévision de la loi.',
  },
};
