import type { PersonalAccessToken, User } from '../generated/prisma/client.ts';
import { InsufficientScopeError, type DomainError } from '../core/errors.ts';
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
    /**
     * Why the token may not be used (expired, revoked). GitLab checks a token's scope first, then
     * its expiry, then its revocation, so this is raised by the scope check, not at lookup.
     */
    readonly credentialProblem: DomainError | null = null,
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

  /** Scope, then expiry, then revocation: the order every surface (REST, GraphQL, git) checks a token in. */
  requireScope(scopes: readonly Scope[]) {
    if (!this.hasScope(scopes)) throw new InsufficientScopeError(scopes);
    this.requireUsableCredential();
  }

  /** Expiry and revocation alone, for requests that name no scope (e.g. `{ __typename }`). */
  requireUsableCredential() {
    if (this.credentialProblem) throw this.credentialProblem;
  }
}
