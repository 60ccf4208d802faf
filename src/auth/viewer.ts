import type { PersonalAccessToken, User } from '../generated/prisma/client.ts';
import { InsufficientScopeError } from '../graphql/errors.ts';
import type { Scope } from './scopes.ts';

/** Who is asking, and through which credential. */
export class Viewer {
  constructor(
    readonly user: User | null,
    readonly token: PersonalAccessToken | null,
    /** Set when an admin acts as `user` through Sudo. */
    readonly sudoer: User | null = null,
    /** Set for a CI job token: the viewer acts as the job's user, within this project only. */
    readonly job: { projectId: number } | null = null,
  ) {}

  static anonymous() {
    return new Viewer(null, null);
  }

  get isAdmin() {
    return Boolean(this.user?.isAdmin);
  }

  get userId() {
    return this.user?.id ?? null;
  }

  /** True when the credential allows one of the scopes; anonymous requests carry no credential. */
  hasScope(scopes: readonly Scope[]) {
    if (!this.token) return true;
    return scopes.some((s) => this.token!.scopes.includes(s));
  }

  requireScope(scopes: readonly Scope[]) {
    if (!this.hasScope(scopes)) throw new InsufficientScopeError(scopes);
  }
}
