import { randomUUID } from 'node:crypto';

/** What a client may send as its own X-Request-Id: short and safe to echo in a header and a log. */
const WELL_FORMED = /^[A-Za-z0-9._-]{1,128}$/;

export function newRequestId(): string {
  return randomUUID();
}

/** The client's X-Request-Id when well-formed (so its logs and ours can be matched), else a new one. */
export function requestIdFor(header: string | undefined): string {
  return header !== undefined && WELL_FORMED.test(header) ? header : newRequestId();
}
