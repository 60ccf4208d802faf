import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Context } from '../../core/context.ts';
import { NotFoundError } from '../../core/errors.ts';
import type { ArchiveFormat as ArchiveFormatEnum, ProjectArchiveQuery } from '../../generated/operations.ts';
import { ARCHIVE_FORMATS, ARCHIVE_SUFFIXES, archiveContentType, suffixOfFileName, type ArchiveFormat, type ArchiveSuffix } from '../../git/archive.ts';
import { param } from '../../rest/declare.ts';
import { defineRoutes, route } from '../../rest/route.ts';
import { expected, found } from '../../rest/shape.ts';
import { openArchive, type ArchiveInfo } from './service.ts';

/** GraphQL's ArchiveFormat enum value of each format. */
const FORMAT_ENUM = { zip: 'ZIP', 'tar.gz': 'TAR_GZ', 'tar.bz2': 'TAR_BZ2', tar: 'TAR' } as const satisfies Record<ArchiveFormat, ArchiveFormatEnum>;
const formatOfEnum = (value: ArchiveFormatEnum | null) => ARCHIVE_FORMATS.find((f) => FORMAT_ENUM[f] === value)!;

/** The archive the operation described, with the file name to offer. */
function describedArchive(data: ProjectArchiveQuery, fileName?: string): ArchiveInfo {
  const project = found(data.project, 'Project');
  const archive = found(project.repository?.archive, 'Commit');
  return {
    projectId: expected(project.databaseId, 'project id'),
    sha: expected(archive.sha, 'archive commit'),
    format: formatOfEnum(archive.format),
    prefix: expected(archive.prefix, 'archive prefix'),
    fileName: fileName ?? expected(archive.fileName, 'archive file name'),
    path: archive.path ?? null,
  };
}

/**
 * Workhorse's `attachment; filename="…"`, always quoted. A name outside printable ASCII (a ref may
 * be any UTF-8) is given as RFC 6266's `filename*` beside an ASCII fallback.
 */
function attachment(fileName: string) {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const plain = `attachment; filename="${ascii}"`;
  return ascii === fileName ? plain : `${plain}; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** Streams the (already authorized) archive: from the cache, or from `git archive` as it runs. */
async function sendArchive(res: Response, archive: ArchiveInfo, ctx: Context) {
  const { stream, size } = await openArchive(ctx, archive);
  // Workhorse's headers: an attachment with its name, zip typed, any tar as plain bytes.
  res.set({
    'Content-Disposition': attachment(archive.fileName),
    'Content-Type': archiveContentType(archive.format),
    'Content-Transfer-Encoding': 'binary',
  });
  if (size !== undefined) res.set('Content-Length', String(size));
  // A failure after the headers went out can only cut the connection; pipeline does, and stops git.
  await pipeline(stream, res).catch((error: Error) => ctx.deps.log.warn({ err: error, requestId: ctx.requestId }, 'archive download ended early'));
}

/**
 * `<ref…>/<file>.<suffix>` of the web path: the ref may itself contain slashes. The file is offered
 * under the format's own extension (`app-v1.tgz` downloads as `app-v1.tar.gz`), as GitLab names it.
 */
function webArchive(segments: string[]) {
  if (segments.length < 2) throw new NotFoundError();
  const requested = segments[segments.length - 1];
  const suffix = suffixOfFileName(requested);
  if (!suffix) throw new NotFoundError();
  const format = ARCHIVE_SUFFIXES[suffix];
  return { ref: segments.slice(0, -1).join('/'), format, fileName: `${requested.slice(0, -suffix.length - 1)}.${format}` };
}

const SUFFIXES = Object.keys(ARCHIVE_SUFFIXES) as ArchiveSuffix[];

export const routes = defineRoutes([
  route({
    method: 'GET',
    path: '/projects/:id/repository/archive{.:format}',
    operation: 'ProjectArchive',
    jobToken: true,
    params: { id: param.ref(), sha: param.string(), format: param.oneOf(SUFFIXES, { default: 'tar.gz' }), path: param.string() },
    variables: (v) => ({ ...v.id, ref: v.sha, format: FORMAT_ENUM[ARCHIVE_SUFFIXES[v.format]], path: v.path }),
    result: (data) => describedArchive(data),
    respond: sendArchive,
  }),
]);

export const webRoutes = defineRoutes([
  route({
    method: 'GET',
    path: '/{*full_path}/-/archive/{*archive_path}',
    operation: 'ProjectArchive',
    jobToken: true,
    params: { full_path: param.segments(), archive_path: param.segments(), path: param.string() },
    variables: (v) => {
      const { ref, format } = webArchive(v.archive_path);
      return { fullPath: v.full_path.join('/'), ref, format: FORMAT_ENUM[format], path: v.path };
    },
    result: (data, v) => describedArchive(data, webArchive(v.archive_path).fileName),
    respond: sendArchive,
  }),
]);
