import { spawn } from 'node:child_process';
import { GitCommandError, gitEnv } from './run.ts';

/** GitLab's archive formats, in the order release sources list them. */
export const ARCHIVE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

export const ARCHIVE_CONTENT_TYPES: Record<ArchiveFormat, string> = {
  zip: 'application/zip',
  'tar.gz': 'application/gzip',
  'tar.bz2': 'application/x-bzip2',
  tar: 'application/x-tar',
};

/** The format a file name ends with, longest suffix first (`x.tar.gz` is tar.gz, not tar). */
export function formatOfFileName(fileName: string): ArchiveFormat | null {
  return [...ARCHIVE_FORMATS].sort((a, b) => b.length - a.length).find((f) => fileName.endsWith(`.${f}`)) ?? null;
}

/**
 * The tree of a commit as an archive, every path under `prefix/`. git compresses tar.gz itself;
 * tar.bz2 is declared as a tar filter through `-c`, so no config file is involved.
 */
export function createArchive(dir: string, opts: { commitId: string; format: ArchiveFormat; prefix: string }): Promise<Buffer> {
  if (!/^[0-9a-f]{40}$/.test(opts.commitId)) throw new Error('archive needs a full commit id');
  const args = ['-c', 'tar.tar.bz2.command=bzip2 -c', 'archive', `--format=${opts.format}`, `--prefix=${opts.prefix}/`, opts.commitId];
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: dir, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
    });
  });
}
