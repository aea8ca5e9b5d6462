/** A page of an offset listing, and where it starts. */
export interface OffsetPage<T> {
  items: T[];
  /** The number of items matching the query (X-Total-Count), or null when the service sent none. */
  total: number | null;
  offset: number;
}

/** A page of a token listing (seed §4.3 rule 2). */
export interface TokenPage<T> {
  items: T[];
  hasMore: boolean;
  nextPageToken?: string;
}

/**
 * Offset pages from `start.offset` until the total is reached; without a total, until a page
 * comes back short. An empty page always ends it, so a total that lies cannot loop forever.
 */
export async function* offsetPages<T>(
  fetchPage: (offset: number, limit: number) => Promise<{ items: T[]; total: number | null }>,
  start: { offset?: number; limit: number },
): AsyncGenerator<OffsetPage<T>, void, undefined> {
  let offset = start.offset ?? 0;
  for (;;) {
    const page = await fetchPage(offset, start.limit);
    yield { ...page, offset };
    offset += page.items.length;
    const reachedEnd = page.total === null ? page.items.length < start.limit : offset >= page.total;
    if (page.items.length === 0 || reachedEnd) return;
  }
}

/**
 * Token pages: the previous page's nextPageToken is sent as pageToken while hasMore is true.
 * Stops when hasMore is true without a new token, rather than fetching the same page again.
 */
export async function* tokenPages<P extends TokenPage<unknown>>(
  fetchPage: (pageToken: string | undefined) => Promise<P>,
  firstToken?: string,
): AsyncGenerator<P, void, undefined> {
  let token = firstToken;
  for (;;) {
    const page = await fetchPage(token);
    yield page;
    if (!page.hasMore || !page.nextPageToken || page.nextPageToken === token) return;
    token = page.nextPageToken;
  }
}
