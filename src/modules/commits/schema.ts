import { createHash } from 'node:crypto';
import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { CommitInfo } from '../../git/repository.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, scopes } from '../../graphql/builder.ts';
import { ProjectRef } from '../projects/schema.ts';
import { UserRef } from '../users/schema.ts';
import { projectFullPath } from '../projects/service.ts';
import { findCommit } from './service.ts';

type CommitParent = CommitInfo & { project: ProjectWithNamespace };

export const CommitRef = builder.objectRef<CommitParent>('Commit').implement({
  extensions: scopes(...REPOSITORY_READ_SCOPES),
  fields: (t) => ({
    id: t.id({ resolve: (c) => `gid://gitlab/CommitPresenter/${c.id}` }),
    sha: t.exposeString('id'),
    shortId: t.exposeString('shortId'),
    title: t.exposeString('title'),
    message: t.exposeString('message'),
    parentIds: t.exposeStringList('parentIds'),
    authorName: t.exposeString('authorName'),
    authorEmail: t.exposeString('authorEmail'),
    authoredDate: t.expose('authoredDate', { type: 'Time' }),
    committerName: t.exposeString('committerName'),
    committerEmail: t.exposeString('committerEmail'),
    committedDate: t.expose('committedDate', { type: 'Time' }),
    webUrl: t.string({ resolve: (c, _a, ctx) => `${ctx.deps.config.externalUrl}/${projectFullPath(c.project)}/-/commit/${c.id}` }),
  }),
});

/** The project's Git repository; its fields need the right to read code. */
export const RepositoryRef = builder.objectRef<ProjectWithNamespace>('Repository').implement({
  fields: (t) => ({
    rootRef: t.string({ nullable: true, resolve: (p) => p.defaultBranch }),
    commit: t.field({
      type: CommitRef,
      extensions: scopes(...REPOSITORY_READ_SCOPES),
      nullable: true,
      description: 'The commit a branch, tag, SHA or HEAD points to.',
      args: { ref: t.arg.string({ required: true }) },
      resolve: async (project, { ref }, ctx) => {
        const commit = await findCommit(ctx, project, ref);
        return commit && { ...commit, project };
      },
    }),
  }),
});

builder.objectField(ProjectRef, 'repository', (t) =>
  t.field({ type: RepositoryRef, extensions: scopes(...REPOSITORY_READ_SCOPES), resolve: (p) => p as ProjectWithNamespace }),
);

/** GitLab's commit description: the message after its first line, null when there is none. */
const descriptionOf = (message: string) => message.split('\n').slice(1).join('\n').trim() || null;

/** Gravatar of an email address, GitLab's default avatar for commit authors without an account. */
const gravatar = (email: string) =>
  `https://www.gravatar.com/avatar/${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}?s=80&d=identicon`;

// GitLab's Commit fields for what the repository browser and release pages read.
builder.objectFields(CommitRef, (t) => ({
  fullTitle: t.string({ description: 'Full title of the commit message.', resolve: (c) => c.message.split('\n', 1)[0]!.trim() }),
  description: t.string({ nullable: true, description: 'Description of the commit message.', resolve: (c) => descriptionOf(c.message) }),
  webPath: t.string({ description: 'Web path of the commit.', resolve: (c) => `/${projectFullPath(c.project)}/-/commit/${c.id}` }),
  author: t.field({
    type: UserRef,
    nullable: true,
    description: 'Author of the commit: the user with the author email, when there is one.',
    resolve: (c, _a, ctx) => ctx.db.user.findFirst({ where: { email: { equals: c.authorEmail, mode: 'insensitive' } } }),
  }),
  authorGravatar: t.string({ nullable: true, description: "Commit author's Gravatar URL.", resolve: (c) => gravatar(c.authorEmail) }),
}));

builder.objectFields(RepositoryRef, (t) => ({
  empty: t.boolean({
    description: 'Indicates repository has no visible content (no branch).',
    resolve: async (p, _a, ctx) => !(await ctx.loaders.repository.load(p.id)).hasBranches(),
  }),
  exists: t.boolean({
    description: 'Indicates a corresponding Git repository exists on disk.',
    resolve: (p, _a, ctx) => ctx.loaders.repository.load(p.id).then(() => true, () => false),
  }),
}));
