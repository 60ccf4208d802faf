import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline, type Duplex, type Readable, type Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { gitEnv } from './run.ts';
import type { GitStore } from './store.ts';

/**
 * Git's smart HTTP protocol, one git process per request: `upload-pack` (clone, fetch) and
 * `receive-pack` (push) in `--stateless-rpc` mode, bodies streamed both ways. Callers have
 * authorized the request before anything here starts a process.
 */
export type GitService = 'upload-pack' | 'receive-pack';

/** One ref a push changed (a zero id on either side is a creation or a deletion). */
export type RefUpdate = { ref: string; oldSha: string; newSha: string };
/** A ref change a push proposes; `forced` when a branch moves to a commit that does not contain its old tip. */
export type ProposedRefUpdate = RefUpdate & { forced: boolean };
/** Decides on a push's proposed updates: null accepts all of them, a message refuses the whole push. */
export type PushReview = (updates: ProposedRefUpdate[]) => Promise<string | null>;

export type RpcResult = { exitCode: number | null; stderr: string; updated: RefUpdate[] };

/** A running git process: its output to stream to the client, and what it did once it is gone. */
export type GitRpc = {
  output: Readable;
  finished: Promise<RpcResult>;
  abort(): void;
};

/**
 * Partial clones need filters, and their lazy fetches want objects by id that no ref advertises.
 * The filters are the cheap ones (blob:none, blob:limit, tree:<depth>, object:type and their
 * combinations); sparse checkouts evaluated on the server are refused.
 */
const UPLOAD_PACK_CONFIG = {
  'uploadpack.allowFilter': 'true',
  'uploadpack.allowAnySHA1InWant': 'true',
  'uploadpackfilter.allow': 'false',
  'uploadpackfilter.blob:none.allow': 'true',
  'uploadpackfilter.blob:limit.allow': 'true',
  'uploadpackfilter.tree.allow': 'true',
  'uploadpackfilter.object:type.allow': 'true',
  'uploadpackfilter.combine.allow': 'true',
};

/**
 * Pushes are checked object by object (a corrupt or malicious pack is refused before any ref
 * moves), except for three old-tool quirks common in imported histories. `gc --auto` stays in the
 * foreground so no detached process outlives the request holding the hook channel open.
 */
const receivePackConfig = (hooksPath: string) => ({
  'core.hooksPath': hooksPath,
  'receive.fsckObjects': 'true',
  'receive.fsck.zeroPaddedFilemode': 'ignore',
  'receive.fsck.badTimezone': 'ignore',
  'receive.fsck.missingSpaceBeforeDate': 'ignore',
  'gc.autoDetach': 'false',
});

const configArgs = (config: Record<string, string>) => Object.entries(config).flatMap(([key, value]) => ['-c', `${key}=${value}`]);

const STDERR_LIMIT = 16 * 1024;
const SHA = '[0-9a-f]{40}';
const PROPOSED = new RegExp(`^update (${SHA}) (${SHA}) (refs/\\S+) ([01])$`);
const UPDATED = new RegExp(`^updated (${SHA}) (${SHA}) (refs/\\S+)$`);

/**
 * receive-pack runs these with the socket forgegate opens as fd 3, inherited by the hooks.
 * pre-receive sees the pushed objects (still in quarantine), so it reports the
 * ancestry the rules need; the server's verdict decides. No verdict (the server went away)
 * refuses the push. post-receive reports what landed. Ref names cannot contain spaces.
 */
const HOOKS: Record<string, string> = {
  'pre-receive': `#!/bin/sh
zero=0000000000000000000000000000000000000000
while read -r old new ref; do
  forced=0
  case "$ref" in
    refs/heads/*)
      if [ "$old" != "$zero" ] && [ "$new" != "$zero" ] && ! git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then
        forced=1
      fi
      ;;
  esac
  printf 'update %s %s %s %s\\n' "$old" "$new" "$ref" "$forced" >&3
done
printf 'review\\n' >&3
IFS= read -r verdict <&3 || verdict='deny The push could not be checked. Please try again.'
[ "$verdict" = ok ] && exit 0
printf 'GitLab: %s\\n' "\${verdict#deny }" >&2
exit 1
`,
  'post-receive': `#!/bin/sh
while read -r old new ref; do
  printf 'updated %s %s %s\\n' "$old" "$new" "$ref" >&3
done
exit 0
`,
};

/**
 * The hooks directory, checked before every push: git silently skips a hook that is missing or
 * not executable, which would let a push through unchecked. Rewriting is atomic (other server
 * processes may share the directory) and only happens when the content differs.
 */
async function hooksPath(store: GitStore): Promise<string> {
  const dir = path.join(store.root, '.forgegate-hooks');
  await fs.mkdir(dir, { recursive: true });
  for (const [name, body] of Object.entries(HOOKS)) {
    const file = path.join(dir, name);
    const current = await fs.readFile(file, 'utf8').catch(() => null);
    if (current !== body) {
      const temporary = `${file}.${randomBytes(6).toString('hex')}`;
      await fs.writeFile(temporary, body);
      await fs.chmod(temporary, 0o755);
      await fs.rename(temporary, file);
    } else if (!(await isExecutable(file))) {
      await fs.chmod(file, 0o755);
    }
    // Still not executable (a noexec mount): no push is accepted rather than one unchecked.
    await fs.access(file, fs.constants.X_OK);
  }
  return dir;
}

const isExecutable = (file: string) =>
  fs.access(file, fs.constants.X_OK).then(
    () => true,
    () => false,
  );

/** The client's `Git-Protocol` header, kept only when it is a plain `key=value:…` list. */
export function gitProtocol(header: string | undefined): string | undefined {
  return header && /^[A-Za-z0-9=:._-]{1,256}$/.test(header) ? header : undefined;
}

/** Protocol v2 (fetch only: git has no v2 push) starts with capabilities, without the service line. */
const speaksV2 = (service: GitService, protocol?: string) => service === 'upload-pack' && (protocol?.split(':').includes('version=2') ?? false);

const pktLine = (text: string) => (text.length + 4).toString(16).padStart(4, '0') + text;

/** What smart HTTP sends before a v0/v1 ref advertisement: `# service=git-…` and a flush. */
export function advertisementPrefix(service: GitService, protocol?: string): Buffer {
  return Buffer.from(speaksV2(service, protocol) ? '' : `${pktLine(`# service=git-${service}\n`)}0000`);
}

/** The ref advertisement (`GET info/refs?service=git-…`). */
export async function advertiseRefs(store: GitStore, projectId: number, service: GitService, protocol?: string): Promise<GitRpc> {
  const config = service === 'upload-pack' ? UPLOAD_PACK_CONFIG : {};
  return start(await store.heldPath(projectId), service, config, ['--advertise-refs'], { protocol });
}

/** A fetch negotiation round (`POST git-upload-pack`); `gzip` when the body is gzip-encoded. */
export async function uploadPack(store: GitStore, projectId: number, opts: { input: Readable; gzip: boolean; protocol?: string }): Promise<GitRpc> {
  return start(await store.heldPath(projectId), 'upload-pack', UPLOAD_PACK_CONFIG, [], opts);
}

/**
 * A push (`POST git-receive-pack`). `review` decides on the proposed ref updates after the pack
 * is received and before any ref moves. receive-pack then updates each ref from the old value
 * the client saw to the new one under the ref's lock — a compare-and-swap, so a push racing an
 * API commit either lands or is refused (`failed to update ref`), never overwrites it.
 */
export async function receivePack(
  store: GitStore,
  projectId: number,
  opts: { input: Readable; gzip: boolean; protocol?: string; review: PushReview },
): Promise<GitRpc> {
  const config = receivePackConfig(await hooksPath(store));
  return start(await store.heldPath(projectId), 'receive-pack', config, [], opts);
}

function start(
  dir: string,
  service: GitService,
  config: Record<string, string>,
  args: string[],
  opts: { protocol?: string; input?: Readable; gzip?: boolean; review?: PushReview },
): GitRpc {
  const env = gitEnv({ extra: opts.protocol ? { GIT_PROTOCOL: opts.protocol } : {} });
  const hookChannel = service === 'receive-pack' && !args.includes('--advertise-refs');
  const child = spawn('git', [...configArgs(config), service, '--stateless-rpc', ...args, dir], {
    env,
    // Node's child pipes are socket pairs: fd 3 carries the hooks' reports and the verdicts back.
    stdio: hookChannel ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
  });
  const abort = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  const stderr = collectStderr(child);
  const updated = hookChannel ? serveHooks(child, opts.review ?? denyAll) : [];
  child.stdin!.on('error', () => {}); // a process that stops reading closes its stdin; its exit code tells why
  if (opts.input) {
    const stages: (Readable | Writable)[] = [opts.input, ...(opts.gzip ? [createGunzip()] : []), child.stdin!];
    pipeline(stages as [Readable, Writable], (error) => {
      if (error) abort();
    });
  } else {
    child.stdin!.end();
  }
  const finished = new Promise<RpcResult>((resolve) => {
    child.on('error', () => resolve({ exitCode: null, stderr: stderr(), updated }));
    // 'close', not 'exit': the hook channel has been read to its end by then.
    child.on('close', (code) => resolve({ exitCode: code, stderr: stderr(), updated }));
  });
  return { output: child.stdout!, finished, abort };
}

const denyAll: PushReview = async () => 'Pushes are not accepted here.';

function collectStderr(child: ChildProcess) {
  let text = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (text.length < STDERR_LIMIT) text += chunk.toString('utf8').slice(0, STDERR_LIMIT - text.length);
  });
  return () => text;
}

/** One line of the verdict the pre-receive hook prints after `GitLab: `. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes would break the pkt-line the hook prints
const verdictLine = (message: string | null) => (message === null ? 'ok\n' : `deny ${message.replace(/[\x00-\x1f\x7f]+/g, ' ')}\n`);

/** Answers the pre-receive hook's review requests and collects what post-receive reports. */
function serveHooks(child: ChildProcess, review: PushReview): RefUpdate[] {
  const channel = child.stdio[3] as Duplex;
  channel.on('error', () => {}); // the hook died; receive-pack refuses the push on its own
  const updated: RefUpdate[] = [];
  let proposed: ProposedRefUpdate[] = [];
  let malformed = false;
  readline.createInterface({ input: channel, crlfDelay: Infinity }).on('line', (line) => {
    const proposal = PROPOSED.exec(line);
    const landed = UPDATED.exec(line);
    if (proposal) {
      proposed.push({ oldSha: proposal[1], newSha: proposal[2], ref: proposal[3], forced: proposal[4] === '1' });
    } else if (landed) {
      updated.push({ oldSha: landed[1], newSha: landed[2], ref: landed[3] });
    } else if (line === 'review') {
      const updates = proposed;
      const broken = malformed;
      proposed = [];
      malformed = false;
      const verdict = broken ? Promise.resolve('The push could not be checked.') : review(updates);
      verdict.catch(() => 'The push could not be checked. Please try again.').then((message) => channel.write(verdictLine(message)));
    } else {
      malformed = true;
    }
  });
  return updated;
}
