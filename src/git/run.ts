import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0]} failed (${exitCode}): ${stderr.trim()}`);
  }
}

export type GitIdentity = { name: string; email: string; date?: Date };

/** Environment that pins identity and keeps user/system config out of repository operations. */
export function gitEnv(opts: { author?: GitIdentity; committer?: GitIdentity; extra?: Record<string, string> } = {}) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    ...opts.extra,
  };
  const set = (prefix: string, who?: GitIdentity) => {
    if (!who) return;
    env[`${prefix}_NAME`] = who.name;
    env[`${prefix}_EMAIL`] = who.email;
    if (who.date) env[`${prefix}_DATE`] = `${Math.floor(who.date.getTime() / 1000)} +0000`;
  };
  set('GIT_AUTHOR', opts.author);
  set('GIT_COMMITTER', opts.committer);
  return env;
}

/** Runs git with an argument vector (never a shell). Callers validate every user-supplied value. */
export function runGit(cwd: string, args: string[], opts: { input?: string | Buffer; env?: Record<string, string> } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: opts.env ?? gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    // A command that exits without reading its input (e.g. a refused update-ref) closes the pipe;
    // the exit code reports the failure, the write error adds nothing.
    child.stdin.on('error', () => {});
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Runs git and hands over its output as a stream, for bodies too big to collect (blobs). A failing
 * command ends the stream with a GitCommandError instead of a silently short body.
 */
export function streamGit(cwd: string, args: string[]): Readable {
  const child = spawn('git', args, { cwd, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const err: Buffer[] = [];
  child.stderr.on('data', (c: Buffer) => err.push(c));
  child.on('error', (error) => child.stdout.destroy(error));
  // 'exit' can come before the output is drained, so a reader still sees the error.
  child.on('exit', (code) => {
    if (code !== 0) child.stdout.destroy(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
  });
  return child.stdout;
}
