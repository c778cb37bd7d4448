/**
 * Builds the sample drop shipped in data/ (data/*.parquet + data/drop.json) from the hand-curated
 * CSVs in data/sources/. Run: npx tsx scripts/build-sample-drop.ts
 *
 * created_at is fixed so that re-running on unchanged CSVs reproduces drop.json (and, with the
 * same DuckDB version, the same Parquet bytes): bump it together with `version` when the CSVs change.
 */
import path from 'node:path';
import { buildDrop } from '../src/data/build.js';
import { projectRoot } from '../src/data/sql.js';

const root = projectRoot();

const manifest = await buildDrop(path.join(root, 'data', 'sources'), path.join(root, 'data'), {
  version: 'tunisia-sample-2026.11',
  createdAt: '2026-11-01T00:00:00Z',
  description: [
    "Tunisia, budget de l'État 2016–2025 (2019 omitted), public debt and GDP.",
    'All amounts in MDT (millions of Tunisian dinars).',
    'Expenses and resources are the finance laws: lines with complementary=false are the initial law',
    '(LF; the draft PLF figure where the adopted one was not published) and lines with complementary=true',
    "are the changes made by the complementary law (LFC/LFR 2020, 2021, 2022: the law's figure minus the",
    "initial one). Deficit is the Article-1 'résultat du budget de l'État' after grants, law as last amended",
    '(2020–2025). Debt stocks use the latest stage (outturn first). GDP is the INS base-2015 series',
    '(2010–2020, 2025); GDP 2021–2024 is derived as published debt stock ÷ published debt-to-GDP ratio.',
    'Illustrative, not official: all expense lines are attributed to one organization',
    "(État — budget général); ministries are listed without lines because the sources give no",
    'ministry × nature split; lines marked derived in data/SOURCES.md (residuals, shares, differences)',
    'are computed from published figures, not published themselves.',
  ].join(' '),
  source:
    'Figures quoted from Tunisian press reports of Ministry of Finance/TAP documents and INS national accounts, ' +
    'compiled with source URL and quote per figure in the project reference data (reference-data/tunisia); ' +
    'per-line provenance in data/SOURCES.md',
  license: 'Figures quoted from public sources; see data/SOURCES.md',
});

for (const [file, { rows, sha256 }] of Object.entries(manifest.files)) {
  console.log(`${file.padEnd(26)} ${String(rows).padStart(4)} rows  ${sha256}`);
}
