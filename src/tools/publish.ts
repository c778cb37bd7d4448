/**
 * `budget-data publish DIR s3://bucket/prefix/`: uploads a drop for servers that read it through
 * DATA_URL. The drop is validated first, with the server's own checks, and drop.json is uploaded
 * last, after every file it lists, so that a server never sees a manifest before its files.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { loadDrop } from '../data/drop.js';
import { MANIFEST_FILE } from '../data/manifest.js';
import { parseS3Url, s3Client } from '../data/remote.js';

const CONTENT_TYPES: Record<string, string> = {
  '.parquet': 'application/vnd.apache.parquet',
  '.json': 'application/json',
};

export interface Published {
  version: string;
  files: string[];
  bytes: number;
}

/** Validates the drop in `dir` (throws its DropError when invalid), then uploads it. */
export async function publishDrop(dir: string, s3Url: string, onFile: (name: string, bytes: number) => void = () => {}): Promise<Published> {
  const drop = await loadDrop(dir);
  drop.instance.closeSync();
  const { bucket, prefix } = parseS3Url(s3Url);
  const client = s3Client();
  const files = [...Object.keys(drop.manifest.files), MANIFEST_FILE];
  let bytes = 0;
  try {
    for (const name of files) {
      const file = path.join(dir, name);
      const size = (await stat(file)).size;
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `${prefix}${name}`,
          Body: createReadStream(file),
          ContentLength: size,
          ContentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
          // Servers look for a new drop.json: a cache in between must not keep an old one.
          ...(name === MANIFEST_FILE ? { CacheControl: 'no-cache' } : {}),
        }),
      );
      bytes += size;
      onFile(name, size);
    }
  } finally {
    client.destroy();
  }
  return { version: drop.manifest.version, files, bytes };
}
