/**
 * `budget-data publish DIR s3://bucket/prefix/`: uploads a drop for servers that read it through
 * DATA_URL. The drop is validated first, with the server's own checks, and drop.json is uploaded
 * last, after every file it lists, so that a server never sees a manifest before its files.
 *
 * Every version published is also kept under `prefix/releases/<version>/` (docs/deploying.md#releases):
 * that is where a new replica gets the history, and what makes a version name one content: a
 * version already published with other content is refused before anything is uploaded.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DropError, fingerprintOf, loadDrop } from '../data/drop.js';
import { MANIFEST_FILE, readManifestText, type Manifest } from '../data/manifest.js';
import { fileProblem } from '../data/problems.js';
import { PUBLISHED_FILE, directoryName, sameContent } from '../data/releases.js';
import { parseS3Url, s3Client } from '../data/drop-source.js';

const CONTENT_TYPES: Record<string, string> = {
  '.parquet': 'application/vnd.apache.parquet',
  '.json': 'application/json',
};

/** Where published versions are kept, under the prefix the servers read. */
export const RELEASES_PREFIX = 'releases/';

export interface Published {
  version: string;
  files: string[];
  bytes: number;
}

/**
 * Validates the drop in `dir` (throws its DropError, with every problem, when invalid, or when
 * its version is already published with other content), then uploads it: first its kept copy
 * under releases/, then the drop the servers read, drop.json last.
 */
export async function publishDrop(dir: string, s3Url: string, onFile: (name: string, bytes: number) => void = () => {}): Promise<Published> {
  // Every problem, as validate reports them: the analyst fixes them all before publishing again.
  const drop = await loadDrop(dir, { allProblems: true });
  drop.instance.closeSync();
  const { manifest } = drop;
  const { bucket, prefix } = parseS3Url(s3Url);
  const client = s3Client();
  const files = [...Object.keys(manifest.files), MANIFEST_FILE];
  const releasePrefix = `${prefix}${RELEASES_PREFIX}${directoryName(manifest.version)}/`;
  let bytes = 0;
  try {
    const kept = await publishedManifest(client, bucket, `${releasePrefix}${MANIFEST_FILE}`);
    const current = await publishedManifest(client, bucket, `${prefix}${MANIFEST_FILE}`);
    for (const [where, other] of [
      [`${releasePrefix}`, kept],
      [prefix, current],
    ] as const) {
      if (other && other.version === manifest.version && !sameContent(contentOf(other), contentOf(manifest))) {
        throw new DropError([
          fileProblem(
            MANIFEST_FILE,
            `version must name one content: "${manifest.version}" is already published at s3://${bucket}/${where} with other content; give this drop a new version`,
          ),
        ]);
      }
    }
    const put = async (key: string, name: string, body: () => ReturnType<typeof createReadStream> | string, size: number) => {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body(),
          ContentLength: size,
          ContentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
          // Servers look for a new drop.json: a cache in between must not keep an old one.
          ...(key === `${prefix}${MANIFEST_FILE}` ? { CacheControl: 'no-cache' } : {}),
        }),
      );
    };
    if (!kept) {
      for (const name of files) {
        const file = path.join(dir, name);
        await put(`${releasePrefix}${name}`, name, () => createReadStream(file), (await stat(file)).size);
      }
      const stamp = `${JSON.stringify({ published_at: new Date().toISOString() })}\n`;
      await put(`${releasePrefix}${PUBLISHED_FILE}`, PUBLISHED_FILE, () => stamp, Buffer.byteLength(stamp));
    }
    for (const name of files) {
      const file = path.join(dir, name);
      const size = (await stat(file)).size;
      await put(`${prefix}${name}`, name, () => createReadStream(file), size);
      bytes += size;
      onFile(name, size);
    }
  } finally {
    client.destroy();
  }
  return { version: manifest.version, files, bytes };
}

/** The drop.json published at `key`, or undefined when there is none (or it is not a manifest). */
async function publishedManifest(client: S3Client, bucket: string, key: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    text = (await object.Body?.transformToString('utf8')) ?? '';
  } catch (error) {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
    throw error;
  }
  const read = readManifestText(text);
  return read.ok ? read.manifest : undefined;
}

const contentOf = (manifest: Manifest) => ({ fingerprint: fingerprintOf(manifest), files: manifest.files });
