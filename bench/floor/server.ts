// The floor of `npm run bench`: the least work that answers each scenario with the same bytes as
// forgegate — a bare node:http server, raw pg (one statement per kind of row, authentication
// included), es-git reads, JSON.stringify. No framework, no GraphQL, no ORM. It reads the data
// forgegate seeded (same database, same repositories); bench/index.ts checks byte equality
// before timing. Counters on GET /__stats (CPU, SQL statements, RSS).
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { native, type NativeRepository } from '../../src/git/native.ts';
import { settingsView } from '../../src/modules/projects/settings.ts';

const { DATABASE_URL, REPOSITORIES, DIGEST_KEY, EXTERNAL_URL } = process.env as Record<string, string>;
// timestamp without time zone holds UTC.
pg.types.setTypeParser(1114, (s) => new Date(`${s.replace(' ', 'T')}Z`));
pg.types.setTypeParser(1082, (s) => s);
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
let sql = 0;
const q = async <R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = []) => {
  sql += 1;
  return (await pool.query<R>(text, values)).rows;
};
const ext = EXTERNAL_URL;
const host = new URL(ext).host;
const iso = (d: Date) => d.toISOString();

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: object,
  ) {
    super(String(status));
  }
}

type Viewer = { id: number; admin: boolean };
async function viewer(req: http.IncomingMessage): Promise<Viewer> {
  const token = req.headers['private-token'] as string | undefined;
  if (!token) throw new HttpError(401, { message: '401 Unauthorized' });
  const digest = createHmac('sha256', DIGEST_KEY).update(token).digest('hex');
  const [row] = await q(
    'SELECT t.user_id, t.revoked, t.expires_at, u.is_admin, u.state FROM personal_access_tokens t JOIN users u ON u.id = t.user_id WHERE t.digest = $1',
    [digest],
  );
  if (!row || row.revoked || row.state !== 'active') throw new HttpError(401, { message: '401 Unauthorized' });
  return { id: row.user_id, admin: row.is_admin };
}

// Visible: admin, public/internal, the namespace's owner, or an unexpired membership on the path.
const VISIBLE = `($2::boolean OR p.visibility IN ('public', 'internal') OR n.owner_id = $1 OR EXISTS (
  SELECT 1 FROM members m WHERE m.user_id = $1 AND m.access_level >= 10 AND (m.expires_at IS NULL OR m.expires_at >= (now() AT TIME ZONE 'UTC')::date)
  AND (m.project_id = p.id OR m.namespace_id = ANY (n.traversal_ids))))`;
// The viewer's own membership of the project and their level in its group (`permissions`), for $1.
const PROJECT_COLUMNS = `p.id, p.name, p.path, p.description, p.visibility::text, p.default_branch, p.creator_id, p.archived, p.created_at, p.updated_at, p.last_activity_at,
  p.settings, p.star_count, p.forks_count, p.open_issues_count, p.forked_from_id, p.empty_repo, p.readme_path,
  (SELECT m.access_level FROM members m WHERE m.project_id = p.id AND m.user_id = $1 AND (m.expires_at IS NULL OR m.expires_at >= (now() AT TIME ZONE 'UTC')::date)) AS direct_level,
  (SELECT MAX(a.access_level) FROM group_authorizations a WHERE a.namespace_id = n.id AND a.user_id = $1) AS group_level,
  n.id AS ns_id, n.name AS ns_name, n.path AS ns_path, n.kind::text AS ns_kind, n.full_path AS ns_full_path, n.parent_id AS ns_parent_id,
  (SELECT string_agg(a.name, ' / ' ORDER BY array_position(n.traversal_ids, a.id)) FROM namespaces a WHERE a.id = ANY (n.traversal_ids)) AS ns_full_name`;

type ProjectRow = pg.QueryResultRow;
const projectPath = (p: ProjectRow) => `${p.ns_full_path}/${p.path}`;
const access = (level: number | null) => (level ? { access_level: level, notification_level: 3 } : null);

// Forgegate's answer in its order; the bench's projects are group projects and no forks (no `owner`, no `forked_from_project`).
const projectEntity = async (p: ProjectRow) => {
  if (p.ns_kind !== 'group' || p.forked_from_id !== null) throw new Error('the floor answers group projects that are no forks');
  const web = `${ext}/${projectPath(p)}`;
  const self = `${ext}/api/v4/projects/${p.id}`;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${p.ns_full_name} / ${p.name}`,
    path: p.path,
    path_with_namespace: projectPath(p),
    created_at: iso(p.created_at),
    default_branch: p.default_branch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@${host}:${projectPath(p)}.git`,
    http_url_to_repo: `${web}.git`,
    web_url: web,
    avatar_url: null,
    forks_count: p.forks_count,
    star_count: p.star_count,
    last_activity_at: iso(p.last_activity_at),
    visibility: p.visibility,
    namespace: {
      id: p.ns_id,
      name: p.ns_name,
      path: p.ns_path,
      kind: p.ns_kind,
      full_path: p.ns_full_path,
      parent_id: p.ns_parent_id,
      avatar_url: null,
      web_url: `${ext}/groups/${p.ns_full_path}`,
    },
    updated_at: iso(p.updated_at),
    archived: p.archived,
    creator_id: p.creator_id,
    open_issues_count: p.open_issues_count,
    // Kept on the row by forgegate's ref changes, as it reads them.
    empty_repo: p.empty_repo,
    readme_url: p.readme_path ? `${web}/-/blob/${p.default_branch}/${p.readme_path}` : null,
    _links: {
      self,
      issues: `${self}/issues`,
      merge_requests: `${self}/merge_requests`,
      repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`,
      events: `${self}/events`,
      members: `${self}/members`,
      cluster_agents: `${self}/cluster_agents`,
    },
    ...settingsView(p.settings),
    import_url: null,
    import_type: null,
    import_status: 'none',
    import_error: null,
    shared_with_groups: [],
    mirror: false,
    service_desk_address: null,
    marked_for_deletion_on: null,
    compliance_frameworks: [],
    permissions: { project_access: access(p.direct_level), group_access: access(p.group_level) },
  };
};

async function project(v: Viewer, where: string, value: unknown): Promise<ProjectRow> {
  const [row] = await q(`SELECT ${PROJECT_COLUMNS} FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE ${where} AND ${VISIBLE}`, [
    v.id,
    v.admin,
    value,
  ]);
  if (!row) throw new HttpError(404, { message: '404 Project Not Found' });
  return row;
}

const repository = (id: number) => native.openRepository(path.join(REPOSITORIES, `${id}.git`), { bare: true });

type Commit = Record<string, unknown>;
function readCommit(repo: NativeRepository, sha: string, web: string): Commit {
  const c = repo.getCommit(sha);
  const parents: string[] = [];
  for (let n = 1; ; n++) {
    try {
      parents.push(repo.revparseSingle(`${sha}^${n}`));
    } catch {
      break;
    }
  }
  const author = c.author();
  const committer = c.committer();
  const message = c.message();
  const committed = iso(new Date(committer.timestamp * 1000));
  return {
    id: sha,
    short_id: sha.slice(0, 8),
    created_at: committed,
    parent_ids: parents,
    title: c.summary() ?? message.split('\n')[0],
    message,
    author_name: author.name,
    author_email: author.email,
    authored_date: iso(new Date(author.timestamp * 1000)),
    committer_name: committer.name,
    committer_email: committer.email,
    committed_date: committed,
    trailers: {},
    extended_trailers: {},
    web_url: `${web}/-/commit/${sha}`,
  };
}

const FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'];

/** The rows of one page of releases with everything the list shows, in five statements. */
async function releaseRows(p: ProjectRow) {
  const releases = await q(
    'SELECT id, tag, name, description, sha, author_id, released_at, created_at FROM releases WHERE project_id = $1 ORDER BY released_at DESC, id DESC LIMIT 100',
    [p.id],
  );
  const ids = releases.map((r) => r.id);
  const [links, milestones, authors] = await Promise.all([
    q('SELECT id, release_id, name, url, filepath, link_type::text FROM release_links WHERE release_id = ANY ($1) ORDER BY created_at DESC, id DESC', [ids]),
    q(
      `SELECT rm.release_id, m.id, m.iid, m.project_id, m.group_id, m.title, m.description, m.state::text, m.due_date, m.start_date, m.created_at, m.updated_at, g.full_path AS group_path
       FROM release_milestones rm JOIN milestones m ON m.id = rm.milestone_id LEFT JOIN namespaces g ON g.id = m.group_id WHERE rm.release_id = ANY ($1) ORDER BY rm.milestone_id`,
      [ids],
    ),
    q('SELECT id, username, name, state::text FROM users WHERE id = ANY ($1)', [[...new Set(releases.map((r) => r.author_id))]]),
  ]);
  await q('SELECT id, release_id, sha, created_at FROM release_evidences WHERE release_id = ANY ($1) ORDER BY id DESC', [ids]);
  const group = <T extends pg.QueryResultRow>(rows: T[]) => {
    const by = new Map<number, T[]>();
    for (const row of rows) by.set(row.release_id, [...(by.get(row.release_id) ?? []), row]);
    return by;
  };
  return { releases, links: group(links), milestones: group(milestones), authors: new Map(authors.map((u) => [u.id, u])) };
}

const today = () => new Date().toISOString().slice(0, 10);

/** GitLab's milestone entity after its parent id, as the release list and milestone create show it. */
const milestoneJson = (m: pg.QueryResultRow, webUrl: string) => ({
  id: m.id,
  iid: m.iid,
  title: m.title,
  description: m.description,
  state: m.state,
  created_at: iso(m.created_at),
  updated_at: iso(m.updated_at),
  due_date: m.due_date,
  start_date: m.start_date,
  expired: m.due_date !== null && m.due_date < today(),
  web_url: webUrl,
});

async function releaseList(v: Viewer, projectId: number) {
  const p = await project(v, 'p.id = $3', projectId);
  const { releases, links, milestones, authors } = await releaseRows(p);
  const repo = await repository(p.id);
  const web = `${ext}/${projectPath(p)}`;
  const commits = new Map<string, Commit>();
  const now = new Date();
  return releases.map((r) => {
    const author = authors.get(r.author_id);
    let commit = commits.get(r.sha);
    if (!commit) {
      commit = readCommit(repo, r.sha, web);
      commits.set(r.sha, commit);
    }
    const ls = links.get(r.id) ?? [];
    return {
      name: r.name ?? r.tag,
      tag_name: r.tag,
      description: r.description,
      created_at: iso(r.created_at),
      released_at: iso(r.released_at),
      upcoming_release: r.released_at > now,
      author: author && {
        id: author.id,
        username: author.username,
        name: author.name,
        state: author.state,
        locked: false,
        avatar_url: null,
        web_url: `${ext}/${author.username}`,
      },
      commit,
      milestones: (milestones.get(r.id) ?? []).map((m) => ({
        ...(m.project_id !== null ? { project_id: m.project_id } : { group_id: m.group_id }),
        ...milestoneJson(m, m.project_id !== null ? `${web}/-/milestones/${m.iid}` : `${ext}/groups/${m.group_path}/-/milestones/${m.iid}`),
        issue_stats: { total: 0, closed: 0 },
      })),
      commit_path: `/${projectPath(p)}/-/commit/${r.sha}`,
      tag_path: `/${projectPath(p)}/-/tags/${r.tag}`,
      assets: {
        count: FORMATS.length + ls.length,
        sources: FORMATS.map((format) => ({ format, url: `${web}/-/archive/${r.tag}/${p.path}-${r.tag}.${format}` })),
        links: ls.map((l) => ({
          id: l.id,
          name: l.name,
          url: l.url,
          direct_asset_url: `${web}/-/releases/${r.tag}/downloads${l.filepath}`,
          link_type: l.link_type,
          external: true,
        })),
      },
      evidences: [],
      _links: {
        closed_issues_url: `${web}/-/issues?release_tag=${r.tag}&scope=all&state=closed`,
        closed_merge_requests_url: `${web}/-/merge_requests?release_tag=${r.tag}&scope=all&state=closed`,
        edit_url: `${web}/-/releases/${r.tag}/edit`,
        merged_merge_requests_url: `${web}/-/merge_requests?release_tag=${r.tag}&scope=all&state=merged`,
        opened_issues_url: `${web}/-/issues?release_tag=${r.tag}&scope=all&state=opened`,
        opened_merge_requests_url: `${web}/-/merge_requests?release_tag=${r.tag}&scope=all&state=opened`,
        self: `${web}/-/releases/${r.tag}`,
      },
    };
  });
}

/** The bench's GraphQL selection over the same rows. */
async function releaseListGraphql(v: Viewer, fullPath: string) {
  const p = await project(v, "n.full_path || '/' || p.path = $3", fullPath);
  const { releases, links, milestones, authors } = await releaseRows(p);
  const repo = await repository(p.id);
  const web = `${ext}/${projectPath(p)}`;
  const titles = new Map<string, string>();
  const nodes = releases.map((r) => {
    let title = titles.get(r.sha);
    if (title === undefined) {
      const c = repo.getCommit(r.sha);
      title = c.summary() ?? c.message().split('\n')[0];
      titles.set(r.sha, title);
    }
    const ls = links.get(r.id) ?? [];
    return {
      tagName: r.tag,
      name: r.name ?? r.tag,
      description: r.description,
      releasedAt: iso(r.released_at),
      author: { username: authors.get(r.author_id)!.username },
      commit: { sha: r.sha, title },
      milestones: {
        nodes: (milestones.get(r.id) ?? []).map((m) => ({
          title: m.title,
          webUrl: m.project_id !== null ? `${web}/-/milestones/${m.iid}` : `${ext}/groups/${m.group_path}/-/milestones/${m.iid}`,
          issueStats: { total: 0, closed: 0 },
        })),
      },
      assets: {
        count: FORMATS.length + ls.length,
        links: {
          nodes: ls.map((l) => ({
            name: l.name,
            url: l.url,
            directAssetUrl: `${web}/-/releases/${r.tag}/downloads${l.filepath}`,
            linkType: l.link_type.toUpperCase(),
          })),
        },
        sources: { nodes: FORMATS.map((format) => ({ format, url: `${web}/-/archive/${r.tag}/${p.path}-${r.tag}.${format}` })) },
      },
      links: { selfUrl: `${web}/-/releases/${r.tag}`, editUrl: `${web}/-/releases/${r.tag}/edit` },
    };
  });
  return { data: { project: { releases: { nodes } } } };
}

async function rawFile(v: Viewer, projectId: number, file: string): Promise<Buffer> {
  const p = await project(v, 'p.id = $3', projectId);
  const repo = await repository(p.id);
  const commit = repo.revparseSingle('refs/heads/main');
  const entry = repo.getCommit(commit).tree().getPath(file);
  if (!entry) throw new HttpError(404, { message: '404 File Not Found' });
  return Buffer.from(repo.getObject(entry.id()).peelToBlob().content());
}

async function createMilestone(v: Viewer, projectId: number, body: { title: string }) {
  const p = await project(v, 'p.id = $3', projectId);
  const client = await pool.connect();
  try {
    sql += 4;
    await client.query('BEGIN');
    const [{ last }] = (
      await client.query(
        "INSERT INTO internal_ids (scope, owner_id, last) VALUES ('milestones:project', $1, 1) ON CONFLICT (scope, owner_id) DO UPDATE SET last = internal_ids.last + 1 RETURNING last",
        [p.id],
      )
    ).rows;
    const [m] = (
      await client.query(
        "INSERT INTO milestones (iid, project_id, title, description, state, created_at, updated_at) VALUES ($1, $2, $3, '', 'active', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC') RETURNING id, iid, title, description, state::text, due_date, start_date, created_at, updated_at",
        [last, p.id, body.title],
      )
    ).rows;
    await client.query('COMMIT');
    return { project_id: p.id, ...milestoneJson(m, `${ext}/${projectPath(p)}/-/milestones/${m.iid}`) };
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

async function projectList(v: Viewer, perPage: number) {
  // Same page and total as GET /projects (newest first).
  const [rows] = await Promise.all([
    q(`SELECT ${PROJECT_COLUMNS} FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE ${VISIBLE} ORDER BY p.created_at DESC, p.id DESC LIMIT $3`, [
      v.id,
      v.admin,
      perPage,
    ]),
    q(`SELECT count(*) FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE ${VISIBLE}`, [v.id, v.admin]),
  ]);
  return Promise.all(rows.map(projectEntity));
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
  });

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url!, 'http://floor');
    if (url.pathname === '/__stats') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ cpu: process.cpuUsage(), sql, rss: process.memoryUsage().rss }));
      return;
    }
    const v = await viewer(req);
    const route = (method: string, pattern: RegExp) => (req.method === method ? url.pathname.match(pattern) : null);
    const raw = route('GET', /^\/api\/v4\/projects\/(\d+)\/repository\/files\/(.+)\/raw$/);
    if (raw) {
      const bytes = await rawFile(v, Number(raw[1]), decodeURIComponent(raw[2]));
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(bytes);
      return;
    }
    const one = route('GET', /^\/api\/v4\/projects\/(\d+)$/);
    const releases = route('GET', /^\/api\/v4\/projects\/(\d+)\/releases$/);
    const milestones = route('POST', /^\/api\/v4\/projects\/(\d+)\/milestones$/);
    let body: unknown;
    let status = 200;
    if (route('GET', /^\/api\/v4\/projects$/)) body = await projectList(v, Number(url.searchParams.get('per_page') ?? 20));
    else if (one) body = await projectEntity(await project(v, 'p.id = $3', Number(one[1])));
    else if (releases) body = await releaseList(v, Number(releases[1]));
    else if (milestones) {
      body = await createMilestone(v, Number(milestones[1]), JSON.parse(await readBody(req)));
      status = 201;
    } else if (route('POST', /^\/api\/graphql$/)) {
      const { variables } = JSON.parse(await readBody(req));
      body = await releaseListGraphql(v, variables.fullPath);
    } else throw new HttpError(404, { message: '404 Not Found' });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  } catch (error) {
    const e = error instanceof HttpError ? error : new HttpError(500, { message: String(error) });
    res.writeHead(e.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(e.body));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`READY ${JSON.stringify({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}`));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
