import type { Context } from '../../core/context.ts';
import { batchGroupBy, type SettledLoader } from '../../core/loaders.ts';
import type { PersonalAccessToken } from '../../generated/prisma/client.ts';
import { tokensOfUsers, type TokenFilter } from './service.ts';

type UserTokenFilter = Omit<TokenFilter, 'userId'>;

/**
 * Users' personal access tokens (`User.personalAccessTokens`), one loader per filter: a list of
 * users asking with the same arguments reads every user's tokens in one statement, not one per
 * user. Each user's tokens are read whole and paged in memory, as a user holds few.
 */
export function createUserTokensLoader(ctx: Context) {
  const byFilter = new Map<string, SettledLoader<number, PersonalAccessToken[]>>();
  return (filter: UserTokenFilter) => {
    const key = JSON.stringify(filter);
    let loader = byFilter.get(key);
    if (!loader) {
      loader = batchGroupBy(
        (userIds) => tokensOfUsers(ctx, userIds, filter),
        (token) => token.userId,
      );
      byFilter.set(key, loader);
    }
    return loader;
  };
}

declare module '../../core/loaders.ts' {
  interface ModuleLoaders {
    userTokens: ReturnType<typeof createUserTokensLoader>;
  }
}
