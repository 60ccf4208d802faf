import type { ProjectWithNamespace } from '../../auth/policy.ts';
import type { CommitInfo } from '../../git/repository.ts';
import { REPOSITORY_READ_SCOPES } from '../../auth/scopes.ts';
import { builder, scopes } from '../../graphql/builder.ts';
import { ProjectRef } from '../projects/schema.ts';
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
