/**
 * A full Parquet export written by DuckDB's own writer (COPY), with the columns that can hold no
 * null marked REQUIRED, as in the Arrow stream and in the Parquet made in JS (parquet.ts).
 *
 * DuckDB 1.5.6 writes every column OPTIONAL, whatever the statement (docs/performance.md#full-exports),
 * so each data page carries definition levels: in a page of version 1 (what DuckDB writes), a
 * 4-byte length and the levels, before the values. DuckDB writes the file uncompressed; each page
 * of a column that holds no null is then written without its levels, every page is compressed
 * with Snappy (as the JS writer's), and the footer is written again with the new offsets and
 * sizes and the columns REQUIRED. The values, dictionaries, encodings and statistics are
 * DuckDB's, untouched. Bloom filters, which DuckDB writes after the row groups, are left out (the
 * JS writer writes none either).
 *
 * The file is rewritten row group by row group, one row group's bytes (its 100,352 lines, a few
 * megabytes) in memory at a time, each read in one go and written in one go.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';
import { parquetMetadata, type ColumnChunk, type ColumnMetaData, type FileMetaData, type PageHeader } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import snappy from 'snappy';
import type { Column } from './table.js';

const MAGIC = Buffer.from('PAR1');

/** The footer's usual size is well under this: read with the tail's length in one go. */
const FOOTER_GUESS = 64 * 1024;

/** COPY's options: uncompressed, so that a page's levels can be cut out before it is compressed; row groups of about the JS writer's size (DuckDB rounds it to whole vectors: 100,352). */
export const PARQUET_COPY_OPTIONS = 'FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 100000';

/**
 * Has DuckDB write the export (`copyTo`, into a file beside `part`), then writes it into `part`
 * with its required columns so marked. The magic number goes into `part` first, so that the
 * requests reading it as it grows (http/export-files.ts) have a first byte while DuckDB writes.
 */
export async function withRequiredColumns(copyTo: (file: string) => Promise<void>, part: string, columns: readonly Column[]): Promise<void> {
  const raw = `${part}.duckdb`;
  const out = await open(part, 'a');
  try {
    await out.write(MAGIC);
    await copyTo(raw);
    const input = await open(raw, 'r');
    try {
      await rewrite(input, out, new Set(columns.filter((column) => !column.nullable).map((column) => column.name)));
    } finally {
      await input.close();
    }
  } finally {
    await out.close();
    await rm(raw, { force: true });
  }
}

async function rewrite(input: FileHandle, out: FileHandle, required: ReadonlySet<string>): Promise<void> {
  const metadata = await footerOf(input);
  // Bytes of `out` so far: the magic number.
  let at = MAGIC.length;
  for (const group of metadata.row_groups) {
    // A row group is read in one go and written in one go, not a column chunk at a time: each
    // file operation is a trip through libuv's thread pool (every line of a 1M-line drop, 10 row
    // groups: 187 ms a chunk at a time, 143 ms a group at a time, the same bytes).
    const chunks = await chunksOf(input, group.columns);
    const groupStart = at;
    let groupBytes = 0n;
    const pieces: Uint8Array[] = [];
    for (const chunk of chunks) {
      const { bytes: written, uncompressed } = rewriteChunk(chunk, at, required, pieces);
      at += written;
      groupBytes += uncompressed;
    }
    await out.writev(pieces);
    group.file_offset = BigInt(groupStart);
    group.total_compressed_size = BigInt(at - groupStart);
    group.total_byte_size = groupBytes;
  }
  // The schema as the JS writer writes it (parquet.ts): required columns, text as STRING.
  metadata.schema[0]!.name = 'root';
  for (const element of metadata.schema.slice(1)) {
    if (required.has(element.name)) element.repetition_type = 'REQUIRED';
    if (element.converted_type === 'UTF8') element.logical_type ??= { type: 'STRING' };
  }
  const footer = new ByteWriter();
  writeMetadata(footer, metadata);
  footer.appendBytes(MAGIC);
  await out.write(new Uint8Array(footer.getBytes()));
}

/** A column chunk as DuckDB wrote it: its footer entry, its metadata, and its pages' bytes. */
interface WrittenChunk {
  chunk: ColumnChunk;
  meta: ColumnMetaData;
  bytes: Buffer;
}

/** A row group's column chunks, their bytes read from the file in one go. */
async function chunksOf(input: FileHandle, chunks: readonly ColumnChunk[]): Promise<WrittenChunk[]> {
  const ranges = chunks.map((chunk) => {
    const meta = chunk.meta_data;
    if (!meta || meta.codec !== 'UNCOMPRESSED' || chunk.offset_index_offset !== undefined || chunk.column_index_offset !== undefined) {
      throw new Error('COPY wrote a column chunk this rewrite does not know');
    }
    return { chunk, meta, start: Number(meta.dictionary_page_offset ?? meta.data_page_offset), length: Number(meta.total_compressed_size) };
  });
  const first = Math.min(...ranges.map((range) => range.start));
  const end = Math.max(...ranges.map((range) => range.start + range.length));
  const bytes = Buffer.alloc(end - first);
  await input.read(bytes, 0, bytes.length, first);
  return ranges.map(({ chunk, meta, start, length }) => ({ chunk, meta, bytes: bytes.subarray(start - first, start - first + length) }));
}

/** The file's metadata, read from its end: one read of its last bytes, a second only for a footer larger than those. */
async function footerOf(input: FileHandle): Promise<FileMetaData> {
  const { size } = await input.stat();
  const tailLength = Math.min(size, FOOTER_GUESS);
  let tail = Buffer.alloc(tailLength);
  await input.read(tail, 0, tailLength, size - tailLength);
  if (tailLength < 8 || !tail.subarray(tailLength - 4).equals(MAGIC)) throw new Error('COPY wrote no Parquet footer');
  const length = tail.readUInt32LE(tailLength - 8) + 8;
  if (length > size) throw new Error('COPY wrote no Parquet footer');
  if (length > tailLength) {
    tail = Buffer.alloc(length);
    await input.read(tail, 0, length, size - length);
  }
  const footer = tail.subarray(tail.length - length);
  return parquetMetadata(footer.buffer.slice(footer.byteOffset, footer.byteOffset + length) as ArrayBuffer);
}

/**
 * Adds one column chunk to `pieces` (where it starts at `at` in the file written): each data page
 * of a required column without its definition levels, every page compressed. Sets the chunk's
 * offsets and sizes in the footer to match.
 */
function rewriteChunk(
  { chunk, meta, bytes }: WrittenChunk,
  at: number,
  required: ReadonlySet<string>,
  pieces: Uint8Array[],
): { bytes: number; uncompressed: bigint } {
  const column = meta.path_in_schema.join('.');
  const strip = meta.path_in_schema.length === 1 && required.has(column);
  if (strip && meta.statistics?.null_count !== 0n) throw new Error(`COPY wrote column ${column} with nulls, or without counting them`);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.length), offset: 0 };
  let written = 0;
  let uncompressed = 0;
  let firstDataPage: number | undefined;
  while (reader.offset < bytes.length) {
    const header = parquetHeader(reader);
    let body: Uint8Array = bytes.subarray(reader.offset, reader.offset + header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    if (header.type !== 'DICTIONARY_PAGE') {
      firstDataPage ??= at + written;
      if (strip) body = withoutLevels(header, body, column);
    }
    const compressed = snappy.compressSync(body);
    const head = new ByteWriter();
    // DuckDB's checksum, if any, was of the page as DuckDB wrote it.
    writePageHeader(head, { ...header, crc: undefined, uncompressed_page_size: body.length, compressed_page_size: compressed.length });
    const headBytes = new Uint8Array(head.getBytes());
    pieces.push(headBytes, compressed);
    written += headBytes.length + compressed.length;
    uncompressed += headBytes.length + body.length;
  }
  meta.codec = 'SNAPPY';
  if (meta.dictionary_page_offset !== undefined) meta.dictionary_page_offset = BigInt(at);
  meta.data_page_offset = BigInt(firstDataPage ?? at);
  meta.total_compressed_size = BigInt(written);
  meta.total_uncompressed_size = BigInt(uncompressed);
  meta.bloom_filter_offset = undefined;
  meta.bloom_filter_length = undefined;
  // Its definition levels' histogram would describe levels the column no longer has.
  if (strip) meta.size_statistics = undefined;
  chunk.file_offset = BigInt(at);
  return { bytes: written, uncompressed: BigInt(uncompressed) };
}

/**
 * The values of a version 1 data page of an optional column that has no null: what follows its
 * definition levels (a 4-byte length, then the levels). The column has no repetition levels.
 */
function withoutLevels(header: PageHeader, body: Uint8Array, column: string): Uint8Array {
  if (header.type !== 'DATA_PAGE' || header.data_page_header?.definition_level_encoding !== 'RLE') {
    throw new Error(`COPY wrote column ${column} with a page this rewrite cannot make required`);
  }
  const levels = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(0, true);
  return body.subarray(4 + levels);
}
