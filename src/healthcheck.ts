/**
 * The container's HEALTHCHECK: exit 0 when /readyz answers 200 on this container's PORT, 1
 * otherwise. It asks HOST when the server is bound to one address, and loopback when it listens
 * on every address.
 */
const port = process.env.PORT || '3000';
const host = process.env.HOST || '0.0.0.0';
const target = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

try {
  const response = await fetch(`http://${target}:${port}/readyz`, { signal: AbortSignal.timeout(2_500) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
