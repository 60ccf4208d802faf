import qs from 'qs';
import type { Request, Response } from 'express';
import { offsetToCursor } from '@pothos/plugin-relay';
import { DomainError } from '../core/errors.ts';
import { DEFAULT_PAGE_SIZE, keysCursor, MAX_PAGE_SIZE } from '../core/listing.ts';
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
  const link = (n: number) => pageLink(req, externalUrl, { page: n, per_page: perPage });
  const links = [
    prev && `${link(prev)}; rel="prev"`,
    next && `${link(next)}; rel="next"`,
    `${link(1)}; rel="first"`,
    counted && `${link(totalPages)}; rel="last"`,
  ].filter(Boolean);
  res.set('Link', links.join(', '));
}

/**
 * A link to the request's route with its query (credentials left out) and `params` over it, keys
 * sorted as Rails' `to_query` sorts them.
 */
function pageLink(req: Request, externalUrl: string, params: Record<string, unknown>) {
  const query = { ...withoutCredentials(req.query as Record<string, unknown>), ...params };
  const search = qs.stringify(query, { arrayFormat: 'brackets', sort: (a, b) => a.localeCompare(b) });
  return `<${externalUrl}${req.baseUrl}${req.path}?${search}>`;
}

/**
 * How a route pages with `pagination=keyset`, where GitLab offers it: which orders seek, the
 * position a request names (as the GraphQL cursor its operation takes) and the parameters of the
 * next page's link, from the page's last row.
 */
export type KeysetRoute = {
  seeks(p: Params): boolean;
  position(p: Params): string | null;
  next(last: Record<string, unknown>, p: Params): Record<string, string>;
};

/** GitLab's answer to `pagination=keyset` on a route or an order that does not seek. */
export const keysetUnavailable = () => {
  const message = 'Keyset pagination is not yet available for this type of request';
  return new DomainError('KEYSET_UNAVAILABLE', 405, { error: message }, message);
};

/**
 * GitLab's keyset pagination by id (projects): `order_by=id` only, the position is `id_after`
 * (ascending) or `id_before` (descending, the default), the last row's id in the next link.
 */
export const idKeyset: KeysetRoute = {
  seeks: (p) => p.value('order_by') === 'id',
  position: (p) => {
    const id = p.int(p.value('sort') === 'asc' ? 'id_after' : 'id_before');
    return id === undefined ? null : keysCursor({ id: String(id) });
  },
  next: (last, p) => ({ [p.value('sort') === 'asc' ? 'id_after' : 'id_before']: String(last.id) }),
};

/**
 * GitLab's cursor-based keyset pagination (groups: `order_by=name`, `sort=asc`): `cursor` is the
 * base64 of the last row's keys as JSON with `_kd` (`n`, the next page), which the list's GraphQL
 * cursor reads as it is.
 */
export function cursorKeyset(orders: Record<string, 'asc'>, keys: (last: Record<string, unknown>) => Record<string, string>): KeysetRoute {
  return {
    seeks: (p) => {
      const orderBy = (p.value('order_by') as string | undefined) ?? Object.keys(orders)[0]!;
      return Object.hasOwn(orders, orderBy) && (p.value('sort') ?? orders[orderBy]) === orders[orderBy];
    },
    position: (p) => p.string('cursor') ?? null,
    next: (last) => ({ cursor: keysCursor({ ...keys(last), _kd: 'n' }) }),
  };
}

/**
 * GitLab's keyset pagination headers: a `Link` to the next page when this one is full (GitLab does
 * not look further ahead), none on the last; no X-Total, X-Page nor X-Next-Page.
 */
export function setKeysetHeaders(req: Request, res: Response, externalUrl: string, perPage: number, nodes: unknown[], keyset: KeysetRoute, p: Params) {
  const last = nodes.at(-1) as Record<string, unknown> | undefined;
  if (nodes.length < perPage || !last) return;
  res.set('Link', `${pageLink(req, externalUrl, { ...keyset.next(last, p), per_page: perPage })}; rel="next"`);
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
