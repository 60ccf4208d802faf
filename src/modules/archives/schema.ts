import { builder } from '../../graphql/builder.ts';
import { ARCHIVE_FORMATS } from '../../git/archive.ts';
import { RepositoryRef } from '../commits/index.ts';
import { describeArchive, type ArchiveInfo } from './service.ts';

export const ArchiveFormatEnum = builder.enumType('ArchiveFormat', {
  values: { ZIP: { value: 'zip' }, TAR_GZ: { value: 'tar.gz' }, TAR_BZ2: { value: 'tar.bz2' }, TAR: { value: 'tar' } } as const,
});

const ArchiveRef = builder.objectRef<ArchiveInfo>('RepositoryArchive').implement({
  description: 'A source archive of one commit; its bytes are served at the REST and web archive paths.',
  fields: (t) => ({
    sha: t.exposeString('sha'),
    format: t.expose('format', { type: ArchiveFormatEnum }),
    prefix: t.exposeString('prefix', { description: 'Directory every path of the archive is under.' }),
    fileName: t.exposeString('fileName'),
    path: t.exposeString('path', { nullable: true, description: 'The subdirectory the archive holds, when one was asked for.' }),
  }),
});

builder.objectField(RepositoryRef, 'archive', (t) =>
  t.field({
    type: ArchiveRef,
    nullable: true,
    args: {
      ref: t.arg.string({ description: 'Branch, tag or SHA; the default branch when left out.' }),
      format: t.arg({ type: ArchiveFormatEnum, defaultValue: 'tar.gz' }),
      path: t.arg.string({ description: 'Only this subdirectory (or file) of the repository.' }),
    },
    resolve: (project, { ref, format, path }, ctx) => describeArchive(ctx, project, ref, format ?? ARCHIVE_FORMATS[1], path),
  }),
);
