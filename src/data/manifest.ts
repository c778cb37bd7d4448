import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { z } from 'zod';

/** The manifest's file name in a drop directory; it is written last. */
export const MANIFEST_FILE = 'drop.json';

/** A file's sha256, as drop.json records it (lower-case hex). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** What one unit of the drop's amounts is: `scale` units of `currency` (MDT: 1,000,000 TND). */
export const UnitsSchema = z.object({
  name: z.string(),
  currency: z.string(),
  scale: z.number().positive(),
});

const Bilingual = z.object({ en: z.string(), fr: z.string() });
const StageName = z.enum(['initial', 'amended', 'outturn']);
/** What a stage's figures cover (contract section 10); the explorer draws stages apart unless comparable. */
const StageInfo = z.object({ label: Bilingual, basis: Bilingual, comparable_with: z.array(StageName) });
/** A gap the drop declares, and why (contract section 10). */
const KnownGap = z.object({ table: z.string(), stage: z.string().nullable(), years: z.array(z.number().int()), reason: Bilingual });

/**
 * drop.json (docs/data-drops.md#dropjson). Unknown keys are kept out; `source`, `license` (the data's
 * licence) and `units` are optional.
 */
export const ManifestSchema = z.object({
  version: z.string(),
  created_at: z.string(),
  description: z.string(),
  source: z.string().optional(),
  license: z.string().optional(),
  units: UnitsSchema.optional(),
  stages: z.partialRecord(StageName, StageInfo).optional(),
  known_gaps: z.array(KnownGap).optional(),
  files: z.record(
    z.string({ error: 'must be an object mapping file names to {"sha256", "rows"}' }),
    z.object({ sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, { error: 'must be 64 hex digits' }), rows: z.number().int().min(0) }),
    { error: 'must be an object mapping file names to {"sha256", "rows"}' },
  ),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type Units = z.infer<typeof UnitsSchema>;
