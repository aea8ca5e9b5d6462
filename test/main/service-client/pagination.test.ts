import { describe, expect, it } from 'vitest';
import { offsetPages, tokenPages } from '../../../src/main/service-client/pagination';

const ITEMS = Array.from({ length: 7 }, (_, i) => i);
const collect = async <T>(pages: AsyncIterable<{ items: T[] }>) => {
  const seen: T[] = [];
  for await (const page of pages) seen.push(...page.items);
  return seen;
};

describe('offsetPages', () => {
  it('stops at the total', async () => {
    const offsets: number[] = [];
    const pages = offsetPages(
      async (offset, limit) => {
        offsets.push(offset);
        return { items: ITEMS.slice(offset, offset + limit), total: ITEMS.length };
      },
      { limit: 3 },
    );
    expect(await collect(pages)).toEqual(ITEMS);
    expect(offsets).toEqual([0, 3, 6]);
  });

  it('without a total, stops at the first short page', async () => {
    const offsets: number[] = [];
    const pages = offsetPages(
      async (offset, limit) => {
        offsets.push(offset);
        return { items: ITEMS.slice(offset, offset + limit), total: null };
      },
      { limit: 7 },
    );
    expect(await collect(pages)).toEqual(ITEMS);
    expect(offsets).toEqual([0, 7]);
  });

  it('stops at an empty page even when the total promises more', async () => {
    const pages = offsetPages(
      async (offset) => ({ items: ITEMS.slice(offset, offset + 5), total: 100 }),
      {
        limit: 5,
      },
    );
    expect(await collect(pages)).toEqual(ITEMS);
  });
});

describe('tokenPages', () => {
  const tokenOf = (index: number) => `t${index}`;
  const fetchFrom =
    (size: number, sent: (string | undefined)[]) => async (token: string | undefined) => {
      sent.push(token);
      const start = token === undefined ? 0 : Number(token.slice(1));
      const items = ITEMS.slice(start, start + size);
      const hasMore = start + size < ITEMS.length;
      return { items, hasMore, ...(hasMore ? { nextPageToken: tokenOf(start + size) } : {}) };
    };

  it('sends each nextPageToken as the next pageToken while hasMore', async () => {
    const sent: (string | undefined)[] = [];
    expect(await collect(tokenPages(fetchFrom(3, sent)))).toEqual(ITEMS);
    expect(sent).toEqual([undefined, 't3', 't6']);
  });

  it('stops when hasMore comes without a token, or with the same token again', async () => {
    const noToken = tokenPages(async () => ({ items: [1], hasMore: true }));
    expect(await collect(noToken)).toEqual([1]);
    const sameToken = tokenPages(async () => ({
      items: [1],
      hasMore: true,
      nextPageToken: 'again',
    }));
    expect(await collect(sameToken)).toEqual([1, 1]);
  });
});
