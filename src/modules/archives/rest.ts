import type { Response } from 'express';
import type { Context } from '../../graphql/context.ts';
import { ARCHIVE_CONTENT_TYPES, ARCHIVE_FORMATS, formatOfFileName, type ArchiveFormat } from '../../git/archive.ts';
import { NotFoundError, ParamError } from '../../graphql/errors.ts';
import type { Params } from '../../rest/params.ts';
import { defineRoutes } from '../../rest/route.ts';
import { found } from '../../rest/shape.ts';
import { archiveContents, type ArchiveInfo } from './service.ts';

// GraphQL's ArchiveFormat enum names the formats ZIP, TAR_GZ, TAR_BZ2, TAR.
const formatEnum = (format: ArchiveFormat) => format.replace('.', '_').toUpperCase();
const formatOfEnum = (value: string) => ARCHIVE_FORMATS.find((f) => formatEnum(f) === value)!;

/** The archive the operation described, with the file name to offer. */
function describedArchive(data: any, fileName?: string): ArchiveInfo {
  const project = found(data.project, 'Project');
  const archive = found(project.repository.archive, 'Commit');
  return { projectId: project.databaseId, sha: archive.sha, format: formatOfEnum(archive.format), prefix: archive.prefix, fileName: fileName ?? archive.fileName };
}

/** Sends the bytes `git archive` writes for the (already authorized) archive. */
async function sendArchive(res: Response, archive: ArchiveInfo, ctx: Context) {
  const bytes = await archiveContents(ctx, archive);
  res.attachment(archive.fileName).type(ARCHIVE_CONTENT_TYPES[archive.format]).send(bytes);
}

/** `<ref…>/<file>.<format>` of the web path: the ref may itself contain slashes. */
function webArchive(p: Params) {
  const segments = p.raw.archive_path;
  if (!Array.isArray(segments) || segments.length < 2) throw new NotFoundError();
  const fileName = String(segments[segments.length - 1]);
  const format = formatOfFileName(fileName);
  if (!format) throw new NotFoundError();
  return { ref: segments.slice(0, -1).join('/'), format, fileName };
}

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/projects/:id/repository/archive{.:format}',
    operation: 'ProjectArchive',
    variables: (p) => {
      const format = p.string('format') ?? 'tar.gz';
      if (!(ARCHIVE_FORMATS as readonly string[]).includes(format)) throw new ParamError('format does not have a valid value');
      return { ...p.ref('id'), ref: p.string('sha'), format: formatEnum(format as ArchiveFormat) };
    },
    result: (data) => describedArchive(data),
    respond: sendArchive,
  },
]);

export const webRoutes = defineRoutes([
  {
    method: 'GET',
    path: '/{*full_path}/-/archive/{*archive_path}',
    operation: 'ProjectArchive',
    variables: (p) => {
      const { ref, format } = webArchive(p);
      return { ...p.projectRef(), ref, format: formatEnum(format) };
    },
    result: (data, p) => describedArchive(data, webArchive(p).fileName),
    respond: sendArchive,
  },
]);
