/**
 * What counts as a website anywhere it is taken or linked: an absolute http(s) URL with a host. The API's writes
 * accept only these (post-args.ts), a site import keeps only these, and the pages link only these.
 */
export function absoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
