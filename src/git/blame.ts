import type { CommitInfo, RepositoryReader } from './reader.ts';

export type BlameRange = { commit: CommitInfo; lineno: number; lines: string[] };

/** Lines as git counts them: a final newline ends the last line, it does not start another. */
export function splitLines(content: Buffer): string[] {
  if (content.length === 0) return [];
  const lines = content.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Blame of `path` at `commitSha` for lines `from`..`to` (1-based, inclusive, clipped to the file),
 * consecutive lines of one commit grouped into one range.
 */
export function blameRanges(reader: RepositoryReader, commitSha: string, path: string, content: Buffer, from = 1, to = Number.MAX_SAFE_INTEGER): BlameRange[] {
  const lines = splitLines(content);
  const last = Math.min(to, lines.length);
  if (from > last) return [];
  const blame = reader.native.blameFile(path, { newestCommit: commitSha, minLine: from, maxLine: last });
  const ranges: BlameRange[] = [];
  const commits = new Map<string, CommitInfo>();
  for (const hunk of blame.iter()) {
    const start = Math.max(hunk.finalStartLineNumber, from);
    const end = Math.min(hunk.finalStartLineNumber + hunk.linesInHunk - 1, last);
    if (start > end) continue;
    const text = lines.slice(start - 1, end);
    const previous = ranges[ranges.length - 1];
    if (previous?.commit.id === hunk.finalCommitId && previous.lineno + previous.lines.length === start) {
      previous.lines.push(...text);
      continue;
    }
    if (!commits.has(hunk.finalCommitId)) commits.set(hunk.finalCommitId, reader.commit(hunk.finalCommitId)!);
    ranges.push({ commit: commits.get(hunk.finalCommitId)!, lineno: start, lines: text });
  }
  return ranges;
}
