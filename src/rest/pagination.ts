import qs from 'qs';
import type { Request, Response } from 'express';
import { offsetToCursor } from '@pothos/plugin-relay';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../core/listing.ts';
import type { Params } from './params.ts';

export type PageRequest = { page: number; perPage: number };

/** GitLab clamps per_page to 100 and treats out-of-range values as the defaults. */
export function readPage(p: Params): PageRequest {
  const page = p.int('page') ?? 1;
  const perPage = p.int('per_page') ?? DEFAULT_PAGE_SIZE;
  return {
    page: Math.max(1, page),
    perPage: perPage < 1 ? DEFAULT_PAGE_SIZE : Math.min(perPage, MAX_PAGE_SIZE),
  };
}

/** The connection arguments that select one offset page. */
export function pageVariables({ page, perPage }: PageRequest) {
  const offset = (page - 1) * perPage;
  return { first: perPage, after: offset > 0 ? offsetToCursor(offset - 1) : null };
}

/** Query parameters that carry credentials; they never travel in a Link or Location header. */
const CREDENTIAL_PARAMS = ['private_token', 'access_token', 'job_token'];

export function withoutCredentials(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([key]) => !CREDENTIAL_PARAMS.includes(key)));
}

// Beyond this GitLab stops counting: X-Total, X-Total-Pages and rel="last" are left out.
const COUNT_LIMIT = 10_000;
/** What a paginated route's lists count up to (`ctx.countLimit`): one past the limit tells "more". */
export const COUNT_BOUND = COUNT_LIMIT + 1;

/**
 * X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, X-Total, X-Total-Pages and Link, as GitLab writes
 * them. Past COUNT_LIMIT the total may be bounded (COUNT_BOUND), so a next page is then told by a
 * full page (`size`, the rows answered), as GitLab pages without a count.
 */
export function setPaginationHeaders(req: Request, res: Response, externalUrl: string, { page, perPage }: PageRequest, total: number, size: number = perPage) {
  const counted = total <= COUNT_LIMIT;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const hasNext = counted ? page < totalPages : size >= perPage;
  const next = hasNext ? page + 1 : null;
  const prev = page > 1 ? (counted ? Math.min(page - 1, totalPages) : page - 1) : null;
  res.set('X-Page', String(page));
  res.set('X-Per-Page', String(perPage));
  res.set('X-Next-Page', next ? String(next) : '');
  res.set('X-Prev-Page', prev ? String(prev) : '');
  if (counted) {
    res.set('X-Total', String(total));
    res.set('X-Total-Pages', String(totalPages));
  }
  const base = externalUrl + req.baseUrl + req.path;
  const query = withoutCredentials(req.query as Record<string, unknown>);
  const link = (n: number) => {
    const search = qs.stringify({ ...query, page: n, per_page: perPage }, { arrayFormat: 'brackets', sort: (a, b) => a.localeCompare(b) });
    return `<${base}?${search}>`;
  };
  const links = [
    prev && `${link(prev)}; rel="prev"`,
    next && `${link(next)}; rel="next"`,
    `${link(1)}; rel="first"`,
    counted && `${link(totalPages)}; rel="last"`,
  ].filter(Boolean);
  res.set('Link', links.join(', '));
}

/** One offset page of a list the operation returned whole (a diff, a tree): what `sendPage` answers. */
export type ListPage<T> = { page: PageRequest; total: number; nodes: T[] };

/** The page `page`/`per_page` select from a whole list. */
export function pageOf<T>(p: Params, list: T[]): ListPage<T> {
  const page = readPage(p);
  const offset = (page.page - 1) * page.perPage;
  return { page, total: list.length, nodes: list.slice(offset, offset + page.perPage) };
}

/** `respond` for a `pageOf` result: the nodes as JSON with GitLab's offset pagination headers. */
export function sendPage<T>(res: Response, body: ListPage<T>, ctx: { deps: { config: { externalUrl: string } } }) {
  setPaginationHeaders(res.req, res, ctx.deps.config.externalUrl, body.page, body.total);
  res.json(body.nodes);
}
