import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type GitResult = { code: number | null; stdout: string; stderr: string };

/** A scratch directory with its own HOME, so no user or system git config leaks into the client. */
export function scratch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgegate-git-client-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    GIT_AUTHOR_NAME: 'Client',
    GIT_AUTHOR_EMAIL: 'client@example.com',
    GIT_COMMITTER_NAME: 'Client',
    GIT_COMMITTER_EMAIL: 'client@example.com',
    LC_ALL: 'C',
  };
  /** Runs the git client; never throws, the exit code and output tell. */
  function git(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<GitResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', args, { cwd: opts.cwd ?? dir, env: { ...env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }
  /** Like git() but fails the test with git's output when git fails. */
  async function ok(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
    const result = await git(args, opts);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
    return result.stdout.trim();
  }
  return { dir, git, ok, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** `http://login:token@host/<full_path>.git`, or without credentials. */
export function remote(base: string, fullPath: string, login?: string, password?: string) {
  const url = new URL(`${base}/${fullPath}.git`);
  if (login !== undefined) url.username = encodeURIComponent(login);
  if (password !== undefined) url.password = encodeURIComponent(password);
  return url.toString();
}
