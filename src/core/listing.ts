/** One page of a list, as an offset and a size: both interfaces page through the same listings. */
export type Page = { offset: number; limit: number };

/** A filtered list that can be read a page at a time and counted. */
export type Listing<T> = { fetch(page: Page): Promise<T[]>; count(): Promise<number> };

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
