/**
 * Every format, in the order negotiation prefers them (JSON first: see negotiate.ts). A new format
 * is a module like csv.ts and one line here.
 */
import { arrow } from './arrow.js';
import { csv } from './csv.js';
import type { Format } from './format.js';
import { json } from './json.js';
import { parquet } from './parquet.js';

export const FORMATS = { json, csv, arrow, parquet } as const satisfies Record<string, Format>;

export type FormatName = keyof typeof FORMATS;
export const FORMAT_NAMES = Object.keys(FORMATS) as [FormatName, ...FormatName[]];

export const isFormatName = (value: unknown): value is FormatName => typeof value === 'string' && Object.hasOwn(FORMATS, value);
