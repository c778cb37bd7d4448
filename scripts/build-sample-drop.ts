/**
 * Builds the sample drop shipped in data/ (data/*.parquet + data/drop.json) from the hand-curated
 * CSVs in data/sources/. Run: npx tsx scripts/build-sample-drop.ts
 *
 * created_at is fixed so that re-running on unchanged CSVs reproduces drop.json (and, with the
 * same DuckDB version, the same Parquet bytes): bump it together with `version` when the CSVs change.
 */
import path from 'node:path';
import { buildDrop } from '../src/tools/build.js';
import { projectRoot } from '../src/data/sql.js';
import { definitions, knownGaps, stages } from './sample-meanings.js';

const root = projectRoot();

const { manifest } = await buildDrop(path.join(root, 'data', 'sources'), path.join(root, 'data'), {
  version: 'tunisia-sample-2026.12b',
  createdAt: '2026-11-25T00:00:00Z',
  description: [
    "Tunisia, budget de l'État 2016–2025, public debt, GDP, population and consumer prices.",
    'Amounts in MDT (millions of Tunisian dinars). Every line and series row says its stage and source.',
    'Expenses and resources: initial = the finance law as adopted (LF; the draft PLF figure where the adopted',
    'one was not published); amendment = the change made by a complementary law (2020, 2021, 2022); outturn =',
    "the MoF's execution figures 2019–2024 on the Article-1 basis (expenses excluding debt principal, own",
    'resources), not comparable with the law totals, which include principal and borrowing.',
    '2016 is the mission table of the finance law 2016 (Al Bawsala; the draft’s table, plus the 200 added to Defence at the vote),',
    '29 missions and the debt service, 29 350 in all. 2017–2025 are split by mission too: the missions the sources give (6 to 19 a',
    'year, one organization id per mission across years, see the crosswalk in data/SOURCES.md), the debt service, and one derived',
    'line a year for the other missions, not itemised in the sources; so lines of 2017–2025 are not split by nature. The complementary',
    'laws’ changes and the outturn lines are not split by mission (organization “État — non réparti par mission”).',
    'Deficit: the law’s Article-1 result after grants (2020–2025), the LF 2016 deficit (excluding grants),',
    'and outturns 2016–2024. Debt stocks: the law’s forecasts and the outturns.',
    'GDP is INS, base 2015: 2010–2020 from the workbook of August 2021, 2021–2025 from the national accounts',
    'edition 2021–2025; so debt and deficit ratios for 2021–2024 differ from the ratios the Ministry of Finance',
    'published on older GDP estimates (2021: 81.95 % of GDP against 85.5 %).',
    'Population: the INS projection 2014–2044 for every year 2016–2025 (one basis; INS estimates exist for 2018–2024 only).',
    'CPI: INS, base 2015, 2015–2025. known_gaps says what is still missing and why.',
    'Rows marked derived are computed from published figures (residuals, shares, differences); data/SOURCES.md',
    'gives every row its arithmetic and sources.',
  ].join(' '),
  source:
    'Tunisian press reports of Ministry of Finance/TAP documents and finance-law articles, Al Bawsala (Marsad Budget) ' +
    'for the finance law 2016 by mission, INS for GDP, population and prices; one verbatim quote per document in ' +
    'sources.parquet, per-row provenance in data/SOURCES.md, the reference figures in data/sources/reference/',
  license: 'CC-BY-4.0 (this compilation; the figures are facts published by the sources listed in sources.parquet)',
  units: { name: 'MDT', currency: 'TND', scale: 1000000 },
  stages,
  known_gaps: knownGaps,
  definitions,
});

for (const [file, { rows, sha256 }] of Object.entries(manifest.files)) {
  console.log(`${file.padEnd(26)} ${String(rows).padStart(4)} rows  ${sha256}`);
}
