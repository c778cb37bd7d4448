/** The path of a request's URL, as Express's req.path gives it, without parsing the whole URL. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
