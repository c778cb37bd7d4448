/**
 * Where a drop is published, as DATA_URL (remote.ts) and `budget-data diff` (diff.ts) both read
 * it: `s3://bucket/prefix/` in object storage, or an `http(s)://` base URL. One file at a time, by
 * name, as a stream with the size the server announced. An http(s) drop is followed through
 * redirects only on its own origin (security review, finding 6), and asked past any cache.
 */
import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** How many redirects on the drop's origin are followed. */
const MAX_REDIRECTS = 5;

export interface Fetched {
  body: Readable;
  /** The size the server announced, when it did. */
  length: number | undefined;
}

/** Where a drop is published: fetches one file of it by name. */
export interface DropSource {
  /** The URL of a file, for messages (no credentials). */
  urlOf(name: string): string;
  get(name: string, signal: AbortSignal): Promise<Fetched>;
}

/** `s3://bucket/prefix/` or `http(s)://host/path/`; a prefix without a trailing slash gets one. */
export function sourceFor(dataUrl: string): DropSource {
  const url = new URL(dataUrl);
  if (url.protocol === 's3:') {
    const { bucket, prefix } = parseS3Url(dataUrl);
    return s3Source(bucket, prefix);
  }
  url.pathname = url.pathname.replace(/([^/])$/, '$1/');
  return httpSource(url);
}

/** `s3://bucket/prefix/` split into its bucket and key prefix (ending in `/`, or empty). */
export function parseS3Url(s3Url: string): { bucket: string; prefix: string } {
  const url = new URL(s3Url);
  return { bucket: url.hostname, prefix: url.pathname.replace(/^\//, '').replace(/([^/])$/, '$1/') };
}

/**
 * An S3 client configured from the standard AWS_* variables (credentials, region; the SDK reads
 * AWS_ENDPOINT_URL itself). S3-compatible stores behind AWS_ENDPOINT_URL (MinIO, R2, ...) are
 * addressed path-style, which they all understand, and are not sent the SDK's newer default
 * checksums, which several of them refuse: the drop's own sha256s are checked anyway.
 */
export function s3Client(): S3Client {
  const compatible = Boolean(process.env.AWS_ENDPOINT_URL);
  return new S3Client({
    region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    forcePathStyle: compatible,
    ...(compatible ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });
}

function s3Source(bucket: string, prefix: string): DropSource {
  const client = s3Client();
  return {
    urlOf: (name) => `s3://${bucket}/${prefix}${name}`,
    async get(name, signal) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}${name}` }), { abortSignal: signal });
      return { body: object.Body as Readable, length: object.ContentLength };
    },
  };
}

function httpSource(base: URL): DropSource {
  const shown = new URL(base);
  shown.username = '';
  shown.password = '';
  return {
    urlOf: (name) => new URL(name, shown).href,
    async get(name, signal) {
      let url = new URL(name, base);
      let response: Response;
      for (let redirects = 0; ; redirects++) {
        // A CDN in front of the drop must not answer drop.json from its cache.
        response = await fetch(url, { signal, redirect: 'manual', headers: { 'Cache-Control': 'no-cache' } });
        const location = response.headers.get('location');
        if (response.status < 300 || response.status > 399 || location === null) break;
        await response.body?.cancel();
        const next = new URL(location, url);
        // Off its origin, a redirect could point the server at any address it can reach.
        if (next.origin !== base.origin) throw new Error(`HTTP ${response.status}: redirected off the drop's origin`);
        if (redirects === MAX_REDIRECTS) throw new Error(`HTTP ${response.status}: more than ${MAX_REDIRECTS} redirects`);
        url = next;
      }
      if (response.status !== 200 || !response.body) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      const length = response.headers.get('content-length');
      return { body: Readable.fromWeb(response.body as never), length: length === null ? undefined : Number(length) };
    },
  };
}

