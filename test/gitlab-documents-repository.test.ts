// The repository browser's documents (issue 40): our own documents selecting what GitLab's
// repository pages select (app/assets/javascripts/repository/queries, blob viewer, blame, commit
// pages, ref selector, Web IDE), with the same arguments and variable types, run against a seeded
// repository through both executors (test/helpers/engines.ts), asserting the data.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createTestApp, expectCounterSees, seedProject, type TestApp } from './helpers/app.ts';
import { graphqlEngines } from './helpers/engines.ts';
import { testTempDir } from './helpers/temp.ts';

let t: TestApp;
let project: { id: number; path_with_namespace: string };
let dev: Awaited<ReturnType<TestApp['user']>>;
let guest: Awaited<ReturnType<TestApp['user']>>;
let engines: Awaited<ReturnType<typeof graphqlEngines>>;
let fullPath: string;
/** The commit `main` points to after the seed, and the one before it. */
let head: string;
let layout: string;

const git = (...args: string[]) =>
  execFileSync('git', ['-C', t.deps.git.pathFor(project.id), ...args])
    .toString()
    .trim();

/** Runs a document (queries on both executors, compared) and returns its data; any error fails the test. */
async function run(document: string, variables: Record<string, unknown> = {}, token: string | null = t.root.token) {
  const res = /^\s*(#.*\n\s*)*mutation\b/.test(document) ? await t.graphql(document, variables, token) : await engines.compare(document, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]).toString('base64');

beforeAll(async () => {
  t = await createTestApp();
  engines = await graphqlEngines(t);
  ({ project } = await seedProject(t));
  fullPath = project.path_with_namespace;
  dev = await t.user('devon');
  guest = await t.user('gwen');
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: dev.id, access_level: 30 }).expect(201);
  await t.api('post', `/projects/${project.id}/members`).send({ user_id: guest.id, access_level: 10 }).expect(201);
  await t
    .api('post', `/projects/${project.id}/repository/commits`)
    .send({
      branch: 'main',
      commit_message: 'Layout <b>bold</b>',
      actions: [
        { action: 'create', file_path: 'src/app.ts', content: 'export const app = 1;\nexport const two = 2;\n' },
        { action: 'create', file_path: 'src/lib/util.ts', content: 'util\n' },
        { action: 'create', file_path: 'docs/guide.md', content: '# Guide\n' },
        { action: 'create', file_path: 'logo.png', content: PNG, encoding: 'base64' },
        { action: 'create', file_path: 'a.txt', content: 'a\n' },
      ],
    })
    .expect(201);
  layout = git('rev-parse', 'main');
  await t
    .api('post', `/projects/${project.id}/repository/commits`)
    .send({
      branch: 'main',
      commit_message: 'Grow the app\n\nTwo lines more, one less.',
      actions: [{ action: 'update', file_path: 'src/app.ts', content: 'export const app = 1;\nexport const three = 3;\nexport const four = 4;\n' }],
    })
    .expect(201);
  head = git('rev-parse', 'main');
  await t.api('post', `/projects/${project.id}/repository/branches`).send({ branch: 'feature', ref: 'main' }).expect(201);
  await t.api('post', `/projects/${project.id}/repository/tags`).send({ tag_name: 'v1.0', ref: 'main' }).expect(201);
});
afterAll(() => t.close());

// ---------------------------------------------------------------------------------------------
// Blob viewer

const BLOB_INFO = `
  # blob page: the blob viewer's file query (blob_info.query.graphql)
  query getBlobInfo($projectPath: ID!, $filePath: [String!]!, $ref: String!, $refType: RefType, $shouldFetchRawText: Boolean!) {
    project(fullPath: $projectPath) {
      __typename
      id
      repository {
        __typename
        empty
        blobs(paths: $filePath, ref: $ref, refType: $refType) {
          __typename
          nodes {
            __typename
            id
            webPath
            name
            size
            rawSize
            rawTextBlob @include(if: $shouldFetchRawText)
            fileType
            language
            path
            blamePath
            editBlobPath
            gitpodBlobUrl
            ideEditPath
            forkAndEditPath
            ideForkAndEditPath
            codeNavigationPath
            projectBlobPathRoot
            forkAndViewPath
            environmentFormattedExternalUrl
            environmentExternalUrlForRouteMap
            canModifyBlob
            canModifyBlobWithWebIde
            canCurrentUserPushToBranch
            archived
            storedExternally
            externalStorage
            externalStorageUrl
            rawPath
            replacePath
            pipelineEditorPath
            simpleViewer { fileType tooLarge type renderError }
            richViewer { fileType tooLarge type renderError }
          }
        }
      }
    }
  }`;

const blobVars = (filePath: string, ref = 'main', refType: string | null = 'HEADS') => ({
  projectPath: fullPath,
  filePath: [filePath],
  ref,
  refType,
  shouldFetchRawText: true,
});

describe('blob viewer documents', () => {
  it('answers the blob page for a source file as GitLab does', async () => {
    const data = await run(BLOB_INFO, blobVars('src/app.ts', 'feature'), dev.token);
    expect(data.project.repository.empty).toBe(false);
    expect(data.project.repository.blobs.nodes).toEqual([
      {
        __typename: 'RepositoryBlob',
        id: `gid://gitlab/Blob/${git('rev-parse', 'main:src/app.ts')}`,
        webPath: `/${fullPath}/-/blob/feature/src/app.ts`,
        name: 'app.ts',
        size: 69,
        rawSize: 69,
        rawTextBlob: 'export const app = 1;\nexport const three = 3;\nexport const four = 4;\n',
        fileType: 'text',
        language: 'typescript',
        path: 'src/app.ts',
        blamePath: `/${fullPath}/-/blame/feature/src/app.ts`,
        editBlobPath: `/${fullPath}/-/edit/feature/src/app.ts`,
        gitpodBlobUrl: null,
        ideEditPath: `/-/ide/project/${fullPath}/edit/feature/-/src/app.ts`,
        forkAndEditPath: null,
        ideForkAndEditPath: null,
        codeNavigationPath: null,
        projectBlobPathRoot: `/${fullPath}/-/blob/feature`,
        forkAndViewPath: null,
        environmentFormattedExternalUrl: null,
        environmentExternalUrlForRouteMap: null,
        // A Developer pushes to an unprotected branch.
        canModifyBlob: true,
        canModifyBlobWithWebIde: true,
        canCurrentUserPushToBranch: true,
        archived: false,
        storedExternally: false,
        externalStorage: null,
        externalStorageUrl: null,
        rawPath: `/${fullPath}/-/raw/feature/src/app.ts`,
        replacePath: `/${fullPath}/-/update/feature/src/app.ts`,
        pipelineEditorPath: null,
        simpleViewer: { fileType: 'text', tooLarge: false, type: 'simple', renderError: null },
        richViewer: null,
      },
    ]);
  });

  it('follows the push rules: the protected default branch takes a Maintainer, a tag is never modified', async () => {
    const pick = (d: { project: { repository: { blobs: { nodes: Record<string, unknown>[] } } } }) => {
      const { canModifyBlob, canCurrentUserPushToBranch, canModifyBlobWithWebIde } = d.project.repository.blobs.nodes[0]!;
      return { canModifyBlob, canCurrentUserPushToBranch, canModifyBlobWithWebIde };
    };
    const no = { canModifyBlob: false, canCurrentUserPushToBranch: false, canModifyBlobWithWebIde: false };
    const yes = { canModifyBlob: true, canCurrentUserPushToBranch: true, canModifyBlobWithWebIde: true };
    expect(pick(await run(BLOB_INFO, blobVars('src/app.ts', 'main'), dev.token))).toEqual(no);
    expect(pick(await run(BLOB_INFO, blobVars('src/app.ts', 'main')))).toEqual(yes);
    expect(pick(await run(BLOB_INFO, blobVars('src/app.ts', 'v1.0', 'TAGS')))).toEqual(no);
    expect(pick(await run(BLOB_INFO, blobVars('src/app.ts', head, null)))).toEqual(no);
  });

  it('reads refType: a branch name under TAGS finds nothing, a tag name under TAGS finds the file', async () => {
    expect((await run(BLOB_INFO, blobVars('src/app.ts', 'main', 'TAGS'))).project.repository.blobs.nodes).toEqual([]);
    const tagged = (await run(BLOB_INFO, blobVars('src/app.ts', 'v1.0', 'TAGS'))).project.repository.blobs.nodes[0];
    expect(tagged.webPath).toBe(`/${fullPath}/-/blob/v1.0/src/app.ts`);
  });

  it('shows a README with its rich viewer and a binary file as a download with an image viewer', async () => {
    const readme = (await run(BLOB_INFO, blobVars('README.md'))).project.repository.blobs.nodes[0];
    expect(readme).toMatchObject({
      fileType: 'readme',
      language: 'markdown',
      simpleViewer: { fileType: 'text', type: 'simple', tooLarge: false, renderError: null },
      richViewer: { fileType: 'markup', type: 'rich', tooLarge: false, renderError: null },
    });
    const logo = (await run(BLOB_INFO, blobVars('logo.png'))).project.repository.blobs.nodes[0];
    expect(logo).toMatchObject({
      rawTextBlob: null,
      fileType: 'download',
      language: null,
      simpleViewer: { fileType: 'download', type: 'simple', tooLarge: false },
      richViewer: { fileType: 'image', type: 'rich' },
    });
  });

  it('shows a Git LFS file as stored externally, its raw size the object it names', async () => {
    const oid = 'a'.repeat(64);
    await t
      .api('post', `/projects/${project.id}/repository/commits`)
      .send({
        branch: 'lfs',
        start_branch: 'main',
        commit_message: 'LFS pointer',
        actions: [{ action: 'create', file_path: 'big.bin', content: `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize 123456\n` }],
      })
      .expect(201);
    const blob = (await run(BLOB_INFO, blobVars('big.bin', 'lfs'), dev.token)).project.repository.blobs.nodes[0];
    expect(blob).toMatchObject({
      storedExternally: true,
      externalStorage: 'lfs',
      externalStorageUrl: `${t.config.externalUrl}/${fullPath}/-/raw/lfs/big.bin?inline=false`,
      rawSize: 123456,
      simpleViewer: { fileType: 'download', type: 'simple', tooLarge: false, renderError: null },
      richViewer: null,
    });
    expect(blob.size).toBeLessThan(200);
  });

  it("answers the blob page's last-commit box and history link (blob last commit)", async () => {
    const data = await run(
      `# blob page: the file's last commit and its history link
      query getBlobLastCommit($projectPath: ID!, $path: String!, $ref: String!, $refType: RefType) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository {
            __typename
            lastCommit(path: $path, ref: $ref, refType: $refType) { __typename sha title authorName webPath }
            blobs(paths: [$path], ref: $ref, refType: $refType) { __typename nodes { __typename id historyPath findFilePath } }
          }
        }
      }`,
      { projectPath: fullPath, path: 'docs/guide.md', ref: 'main', refType: 'HEADS' },
      dev.token,
    );
    expect(data.project.repository.lastCommit).toEqual({
      __typename: 'Commit',
      sha: layout,
      title: 'Layout <b>bold</b>',
      authorName: t.root.name,
      webPath: `/${fullPath}/-/commit/${layout}`,
    });
    expect(data.project.repository.blobs.nodes[0]).toMatchObject({
      historyPath: `/${fullPath}/-/commits/main/docs/guide.md`,
      findFilePath: `/${fullPath}/-/find_file/main`,
    });
  });

  it('answers the blob header controls (blob_controls.query.graphql)', async () => {
    const data = await run(
      `# blob page: the header's buttons (blob_controls.query.graphql)
      query getBlobControls($projectPath: ID!, $filePath: String!, $ref: String!, $refType: RefType) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository {
            __typename
            blobs(paths: [$filePath], ref: $ref, refType: $refType) {
              __typename
              nodes {
                __typename
                id
                name
                blamePath
                permalinkPath
                storedExternally
                externalStorage
                environmentFormattedExternalUrl
                environmentExternalUrlForRouteMap
                rawPath
                rawTextBlob
                simpleViewer { __typename fileType tooLarge type renderError }
                richViewer { __typename fileType tooLarge type renderError }
              }
            }
          }
        }
      }`,
      { projectPath: fullPath, filePath: 'docs/guide.md', ref: 'main', refType: 'HEADS' },
    );
    expect(data.project.repository.blobs.nodes[0]).toEqual({
      __typename: 'RepositoryBlob',
      id: `gid://gitlab/Blob/${git('rev-parse', 'main:docs/guide.md')}`,
      name: 'guide.md',
      blamePath: `/${fullPath}/-/blame/main/docs/guide.md`,
      permalinkPath: `/${fullPath}/-/blob/${head}/docs/guide.md`,
      storedExternally: false,
      externalStorage: null,
      environmentFormattedExternalUrl: null,
      environmentExternalUrlForRouteMap: null,
      rawPath: `/${fullPath}/-/raw/main/docs/guide.md`,
      rawTextBlob: '# Guide\n',
      simpleViewer: { __typename: 'BlobViewer', fileType: 'text', tooLarge: false, type: 'simple', renderError: null },
      richViewer: { __typename: 'BlobViewer', fileType: 'markup', tooLarge: false, type: 'rich', renderError: null },
    });
  });

  it("answers the blob viewer's project info (project_info.query.graphql) by role", async () => {
    const PROJECT_INFO = `
      # blob page: what the viewer may do in the project (project_info.query.graphql)
      query getProjectInfo($projectPath: ID!) {
        project(fullPath: $projectPath) {
          __typename
          id
          userPermissions { __typename pushCode downloadCode createMergeRequestIn forkProject }
          repository { __typename empty }
        }
      }`;
    const perms = (data: { project: { userPermissions: object } }) => data.project.userPermissions;
    expect(perms(await run(PROJECT_INFO, { projectPath: fullPath }, dev.token))).toEqual({
      __typename: 'ProjectPermissions',
      pushCode: true,
      downloadCode: true,
      createMergeRequestIn: false,
      // Forks exist (projectFork, REST's POST /projects/:id/fork): whoever reads the code may fork.
      forkProject: true,
    });
    // A Guest of a private project may not read its code: GitLab answers `repository` null; here
    // the repository's fields refuse (FORBIDDEN), which the REST routes answer 403 with.
    const asGuest = await t.graphql(PROJECT_INFO, { projectPath: fullPath }, guest.token);
    expect(asGuest.body.data.project.userPermissions).toEqual({
      __typename: 'ProjectPermissions',
      pushCode: false,
      downloadCode: false,
      createMergeRequestIn: false,
      forkProject: false,
    });
    expect(asGuest.body.data.project.repository).toBeNull();
    expect(asGuest.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['FORBIDDEN']);
  });

  it('answers the blame page (blame_data.query.graphql)', async () => {
    const data = await run(
      `# blame page: line groups with their commits (blame_data.query.graphql)
      query getBlameData($fullPath: ID!, $filePath: String!, $fromLine: Int, $toLine: Int, $ref: String!) {
        project(fullPath: $fullPath) {
          __typename
          id
          repository {
            __typename
            blobs(ref: $ref, paths: [$filePath]) {
              __typename
              nodes {
                __typename
                id
                blame(fromLine: $fromLine, toLine: $toLine) {
                  __typename
                  firstLine
                  groups {
                    __typename
                    lineno
                    span
                    lines
                    commit { __typename id authorName authorGravatar authoredDate sha title titleHtml message webPath author { __typename id name avatarUrl } }
                  }
                }
              }
            }
          }
        }
      }`,
      { fullPath, filePath: 'src/app.ts', fromLine: 1, toLine: 3, ref: 'main' },
    );
    const groups = data.project.repository.blobs.nodes[0].blame.groups;
    expect(data.project.repository.blobs.nodes[0].blame.firstLine).toBe('export const app = 1;');
    expect(
      groups.map((g: { lineno: number; span: number; commit: { sha: string; title: string } }) => [g.lineno, g.span, g.commit.sha, g.commit.title]),
    ).toEqual([
      [1, 1, layout, 'Layout <b>bold</b>'],
      [2, 2, head, 'Grow the app'],
    ]);
    expect(groups[0].commit).toMatchObject({
      __typename: 'Commit',
      titleHtml: 'Layout &#60;b&#62;bold&#60;/b&#62;',
      webPath: `/${fullPath}/-/commit/${layout}`,
      author: { __typename: 'UserCore', name: expect.any(String) },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Tree

const TREE_ENTRY = `
  fragment TreeEntry on Entry {
    __typename
    id
    sha
    name
    flatPath
    type
  }`;

const PAGINATED_TREE = `
  # repository files list: one page of a directory (paginated_tree.query.graphql)
  ${TREE_ENTRY}
  query getPaginatedTree($projectPath: ID!, $path: String, $ref: String!, $refType: RefType, $nextPageCursor: String, $pageSize: Int) {
    project(fullPath: $projectPath) {
      id
      __typename
      repository {
        __typename
        paginatedTree(path: $path, ref: $ref, refType: $refType, after: $nextPageCursor, first: $pageSize) {
          __typename
          pageInfo { __typename endCursor startCursor hasNextPage }
          nodes {
            __typename
            trees { __typename nodes { ...TreeEntry webPath } }
            submodules { __typename nodes { ...TreeEntry webUrl treeUrl } }
            blobs { __typename nodes { ...TreeEntry mode webPath lfsOid } }
          }
        }
      }
    }
  }`;

type TreePage = {
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
  nodes: { trees: { nodes: { name: string }[] }; blobs: { nodes: { name: string }[] }; submodules: { nodes: { name: string }[] } }[];
};

const namesOf = (page: TreePage) => page.nodes.flatMap((n) => [...n.trees.nodes, ...n.submodules.nodes, ...n.blobs.nodes].map((e) => e.name));

describe('tree documents', () => {
  it('pages a directory as GitLab: directories first, the end cursor continues, an empty cursor is none', async () => {
    const vars = { projectPath: fullPath, path: '', ref: 'main', refType: 'HEADS', nextPageCursor: '', pageSize: 2 };
    const first: TreePage = (await run(PAGINATED_TREE, vars, dev.token)).project.repository.paginatedTree;
    expect(namesOf(first)).toEqual(['docs', 'src']);
    expect(first.pageInfo).toMatchObject({ __typename: 'PageInfo', hasNextPage: true, endCursor: git('rev-parse', 'main:src') });
    const second: TreePage = (await run(PAGINATED_TREE, { ...vars, nextPageCursor: first.pageInfo.endCursor, pageSize: 100 }, dev.token)).project.repository
      .paginatedTree;
    expect(namesOf(second)).toEqual(['README.md', 'a.txt', 'logo.png']);
    expect(second.pageInfo.hasNextPage).toBe(false);
    const blob = second.nodes[0]!.blobs.nodes.find((b) => b.name === 'a.txt');
    expect(blob).toEqual({
      __typename: 'Blob',
      id: `gid://gitlab/Blob/${git('rev-parse', 'main:a.txt')}`,
      sha: git('rev-parse', 'main:a.txt'),
      name: 'a.txt',
      flatPath: 'a.txt',
      type: 'blob',
      mode: '100644',
      webPath: `/${fullPath}/-/blob/main/a.txt`,
      lfsOid: null,
    });
    // A subdirectory, and a directory that does not exist.
    expect(namesOf((await run(PAGINATED_TREE, { ...vars, path: 'src', pageSize: 100 })).project.repository.paginatedTree)).toEqual(['lib', 'app.ts']);
    expect((await run(PAGINATED_TREE, { ...vars, path: 'nope' })).project.repository.paginatedTree).toBeNull();
  });

  it('reads a page in the same statements whatever its size (no statement per entry)', async () => {
    const vars = { projectPath: fullPath, path: '', ref: 'main', refType: 'HEADS', nextPageCursor: '' };
    const small = () => t.graphql(PAGINATED_TREE, { ...vars, pageSize: 1 }, dev.token);
    const large = () => t.graphql(PAGINATED_TREE, { ...vars, pageSize: 100 }, dev.token);
    await expectCounterSees(t, large);
    expect(await countQueries(t, large)).toBe(await countQueries(t, small));
  });

  it('answers the files list of the older tree page (files.query.graphql)', async () => {
    const data = await run(
      `# repository files list, connections per kind (files.query.graphql)
      fragment PageInfo on PageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor }
      ${TREE_ENTRY}
      query getFiles($projectPath: ID!, $path: String, $ref: String!, $refType: RefType, $pageSize: Int!, $nextPageCursor: String) {
        project(fullPath: $projectPath) {
          id
          __typename
          repository {
            __typename
            tree(path: $path, ref: $ref, refType: $refType) {
              __typename
              trees(first: $pageSize, after: $nextPageCursor) { __typename edges { __typename node { ...TreeEntry webPath } } pageInfo { ...PageInfo } }
              submodules(first: $pageSize, after: $nextPageCursor) { __typename edges { __typename node { ...TreeEntry webUrl treeUrl } } pageInfo { ...PageInfo } }
              blobs(first: $pageSize, after: $nextPageCursor) { __typename edges { __typename node { ...TreeEntry mode webPath lfsOid } } pageInfo { ...PageInfo } }
            }
          }
        }
      }`,
      { projectPath: fullPath, path: 'src', ref: 'main', refType: null, pageSize: 100, nextPageCursor: null },
    );
    const tree = data.project.repository.tree;
    expect(tree.trees.edges.map((e: { node: object }) => e.node)).toEqual([
      {
        __typename: 'TreeEntry',
        id: `gid://gitlab/TreeEntry/${git('rev-parse', 'main:src/lib')}`,
        sha: git('rev-parse', 'main:src/lib'),
        name: 'lib',
        flatPath: 'src/lib',
        type: 'tree',
        webPath: `/${fullPath}/-/tree/main/src/lib`,
      },
    ]);
    expect(tree.blobs.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['app.ts']);
    expect(tree.submodules.edges).toEqual([]);
    expect(tree.blobs.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });

  it('lists every file below a directory for the file finder (tree recursive)', async () => {
    const data = await run(
      `# find file page: every file path of the ref
      query getAllFiles($projectPath: ID!, $ref: String!, $path: String, $pageSize: Int) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository {
            __typename
            tree(path: $path, ref: $ref, recursive: true) {
              __typename
              blobs(first: $pageSize) { __typename nodes { __typename path flatPath } pageInfo { __typename hasNextPage endCursor } }
              trees(first: $pageSize) { __typename nodes { __typename path } }
            }
          }
        }
      }`,
      { projectPath: fullPath, ref: 'main', path: '', pageSize: 100 },
    );
    const tree = data.project.repository.tree;
    expect(tree.blobs.nodes.map((b: { path: string }) => b.path).sort()).toEqual([
      'README.md',
      'a.txt',
      'docs/guide.md',
      'logo.png',
      'src/app.ts',
      'src/lib/util.ts',
    ]);
    expect(tree.trees.nodes.map((e: { path: string }) => e.path)).toEqual(['docs', 'src', 'src/lib']);
    expect(tree.blobs.pageInfo.hasNextPage).toBe(false);
  });

  it("links submodules where .gitmodules points: GitLab's web and tree URLs", async () => {
    await t
      .api('post', `/projects/${project.id}/repository/commits`)
      .send({
        branch: 'modules',
        start_branch: 'main',
        commit_message: 'Submodules',
        actions: [
          {
            action: 'create',
            file_path: '.gitmodules',
            content: [
              '[submodule "lib"]',
              '\tpath = lib',
              '\turl = git@gitlab.example.com:acme/lib.git',
              '[submodule "sibling"]',
              '\tpath = sibling',
              '\turl = ../sibling.git',
              '[submodule "hub"]',
              '\tpath = hub',
              '\turl = https://github.com/octo/hub.git',
              '',
            ].join('\n'),
          },
        ],
      })
      .expect(201);
    // Gitlinks, as a push would bring them (the files API writes none).
    const base = git('rev-parse', 'modules');
    const pinned = layout;
    const links = ['lib', 'sibling', 'hub', 'orphan'].map((name) => `160000 commit ${pinned}\t${name}`).join('\n');
    const tree = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'mktree'], { input: `${git('ls-tree', 'modules')}\n${links}\n` })
      .toString()
      .trim();
    const env = { ...process.env, GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@x', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@x' };
    const commit = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'commit-tree', tree, '-p', base, '-m', 'gitlinks'], { env })
      .toString()
      .trim();
    git('update-ref', 'refs/heads/modules', commit, base);
    const vars = { projectPath: fullPath, path: '', ref: 'modules', refType: 'HEADS', nextPageCursor: '', pageSize: 100 };
    const page: TreePage = (await run(PAGINATED_TREE, vars)).project.repository.paginatedTree;
    const submodules = Object.fromEntries(
      page.nodes[0]!.submodules.nodes.map((s) => [
        s.name,
        (({ webUrl, treeUrl, type }) => ({ webUrl, treeUrl, type }))(s as unknown as Record<string, string>),
      ]),
    );
    expect(submodules).toEqual({
      lib: { type: 'commit', webUrl: 'https://gitlab.example.com/acme/lib', treeUrl: `https://gitlab.example.com/acme/lib/-/tree/${pinned}` },
      sibling: { type: 'commit', webUrl: `${t.config.externalUrl}/acme/sibling`, treeUrl: `${t.config.externalUrl}/acme/sibling/-/tree/${pinned}` },
      hub: { type: 'commit', webUrl: 'https://github.com/octo/hub', treeUrl: `https://github.com/octo/hub/tree/${pinned}` },
      orphan: { type: 'commit', webUrl: null, treeUrl: null },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Last commit

const COMMIT_FIELDS = `
  __typename
  id
  sha
  title
  titleHtml
  descriptionHtml
  message
  webPath
  authoredDate
  authorName
  authorGravatar
  author { __typename id name avatarUrl }
  signature {
    __typename
    ... on GpgSignature { gpgKeyPrimaryKeyid verificationStatus }
    ... on X509Signature {
      verificationStatus
      x509Certificate { id subject subjectKeyIdentifier x509Issuer { id subject subjectKeyIdentifier } }
    }
    ... on SshSignature { verificationStatus keyFingerprintSha256 }
  }
  pipelines(ref: $ref, first: 1) {
    __typename
    edges { __typename node { __typename id detailedStatus { __typename id detailsPath icon tooltip text group } } }
  }`;

describe('last commit documents', () => {
  const expected = () => ({
    __typename: 'Commit',
    id: `gid://gitlab/CommitPresenter/${head}`,
    sha: head,
    title: 'Grow the app',
    titleHtml: 'Grow the app',
    descriptionHtml: 'Two lines more, one less.',
    message: 'Grow the app\n\nTwo lines more, one less.',
    webPath: `/${fullPath}/-/commit/${head}`,
    authoredDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    authorName: t.root.name,
    authorGravatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\//),
    author: { __typename: 'UserCore', id: `gid://gitlab/User/${t.root.id}`, name: t.root.name, avatarUrl: null },
    // Unsigned commits: no signature; pipelines do not exist here.
    signature: null,
    pipelines: { __typename: 'PipelineConnection', edges: [] },
  });

  it('answers the last commit of a directory through paginatedTree (path_last_commit.query.graphql)', async () => {
    const data = await run(
      `# repository files list: the last-commit box (path_last_commit.query.graphql)
      query pathLastCommit($projectPath: ID!, $path: String, $ref: String!, $refType: RefType) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository {
            __typename
            paginatedTree(path: $path, ref: $ref, refType: $refType) {
              __typename
              nodes { __typename lastCommit { ${COMMIT_FIELDS} } }
            }
          }
        }
      }`,
      { projectPath: fullPath, path: 'src', ref: 'main', refType: 'HEADS' },
      dev.token,
    );
    const [node] = data.project.repository.paginatedTree.nodes;
    expect(node.lastCommit).toEqual(expected());
  });

  it('answers the last commit of a path through repository.lastCommit (newer path_last_commit)', async () => {
    const LAST = `
      # repository files list: the last-commit box, repository.lastCommit form
      query pathLastCommit($projectPath: ID!, $path: String, $ref: String!, $refType: RefType) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository { __typename lastCommit(path: $path, ref: $ref, refType: $refType) { ${COMMIT_FIELDS} } }
        }
      }`;
    expect((await run(LAST, { projectPath: fullPath, path: '', ref: 'main', refType: 'HEADS' })).project.repository.lastCommit).toEqual(expected());
    // docs/ last changed in the layout commit.
    const docs = (await run(LAST, { projectPath: fullPath, path: 'docs', ref: 'main', refType: null })).project.repository.lastCommit;
    expect(docs).toMatchObject({ sha: layout, title: 'Layout <b>bold</b>', descriptionHtml: null });
    expect((await run(LAST, { projectPath: fullPath, path: '', ref: 'main', refType: 'TAGS' })).project.repository.lastCommit).toBeNull();
  });

  it('reads signed commits as GitLab does without their keys: GPG and SSH UNKNOWN_KEY, with the key the signature names', async () => {
    const dir = testTempDir('signing-');
    const gnupg = `${dir}/gnupg`;
    mkdirSync(gnupg, { mode: 0o700 });
    const gpg = (...args: string[]) => execFileSync('gpg', ['--batch', '--homedir', gnupg, ...args], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    gpg('--passphrase', '', '--quick-gen-key', 'Signer <signer@example.com>', 'ed25519', 'sign', 'never');
    const gpgKeyId = gpg('--list-keys', '--with-colons')
      .split('\n')
      .find((l) => l.startsWith('pub:'))!
      .split(':')[4]!;
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', `${dir}/key`]);
    const sshFingerprint = execFileSync('ssh-keygen', ['-lf', `${dir}/key.pub`, '-E', 'sha256'])
      .toString()
      .split(' ')[1];
    const env = {
      ...process.env,
      GNUPGHOME: gnupg,
      GIT_AUTHOR_NAME: 's',
      GIT_AUTHOR_EMAIL: 'signer@example.com',
      GIT_COMMITTER_NAME: 's',
      GIT_COMMITTER_EMAIL: 'signer@example.com',
    };
    const commitTree = (parent: string, message: string, ...config: string[]) =>
      execFileSync('git', ['-C', t.deps.git.pathFor(project.id), ...config, 'commit-tree', `${parent}^{tree}`, '-p', parent, '-S', '-m', message], { env })
        .toString()
        .trim();
    const gpgSigned = commitTree(head, 'GPG signed', '-c', 'user.signingkey=signer@example.com');
    const sshSigned = commitTree(gpgSigned, 'SSH signed', '-c', 'gpg.format=ssh', '-c', `user.signingkey=${dir}/key.pub`);
    git('update-ref', 'refs/heads/signed', sshSigned);
    const SIGNATURE = `
      # commit page: the signature badge
      query getSignature($projectPath: ID!, $ref: String!) {
        project(fullPath: $projectPath) {
          repository {
            commit(ref: $ref) {
              sha
              signature {
                __typename
                commitSha
                verificationStatus
                project { fullPath }
                ... on GpgSignature { gpgKeyPrimaryKeyid }
                ... on SshSignature { keyFingerprintSha256 }
                ... on X509Signature { x509Certificate { id } }
              }
            }
          }
        }
      }`;
    const signatureOf = async (ref: string) => (await run(SIGNATURE, { projectPath: fullPath, ref }, dev.token)).project.repository.commit.signature;
    expect(await signatureOf(sshSigned)).toEqual({
      __typename: 'SshSignature',
      commitSha: sshSigned,
      verificationStatus: 'UNKNOWN_KEY',
      project: { fullPath },
      keyFingerprintSha256: sshFingerprint,
    });
    expect(await signatureOf(gpgSigned)).toEqual({
      __typename: 'GpgSignature',
      commitSha: gpgSigned,
      verificationStatus: 'UNKNOWN_KEY',
      project: { fullPath },
      gpgKeyPrimaryKeyid: gpgKeyId,
    });
    // An X.509 (S/MIME) signature: GitLab's UNVERIFIED without a trusted certificate.
    const tree = git('rev-parse', `${head}^{tree}`);
    const smime = execFileSync('git', ['-C', t.deps.git.pathFor(project.id), 'hash-object', '-t', 'commit', '-w', '--stdin'], {
      input: [
        `tree ${tree}`,
        `parent ${head}`,
        'author s <signer@example.com> 1700000000 +0000',
        'committer s <signer@example.com> 1700000000 +0000',
        'gpgsig -----BEGIN SIGNED MESSAGE-----',
        ' MIAGCSqGSIb3DQEHAqCAMIACAQExDTALBglghkgBZQMEAgEwgAYJKoZIhvcNAQcB',
        ' -----END SIGNED MESSAGE-----',
        '',
        'S/MIME signed',
        '',
      ].join('\n'),
    })
      .toString()
      .trim();
    expect(await signatureOf(smime)).toEqual({
      __typename: 'X509Signature',
      commitSha: smime,
      verificationStatus: 'UNVERIFIED',
      project: { fullPath },
      x509Certificate: null,
    });
    expect(await signatureOf(head)).toBeNull();
  });

  it('answers the repository page permissions (permissions.query.graphql)', async () => {
    const data = await run(
      `# repository page: what the viewer may do (permissions.query.graphql)
      query getPermissions($projectPath: ID!) {
        project(fullPath: $projectPath) { id __typename userPermissions { __typename pushCode forkProject createMergeRequestIn } }
      }`,
      { projectPath: fullPath },
      dev.token,
    );
    expect(data.project.userPermissions).toEqual({ __typename: 'ProjectPermissions', pushCode: true, forkProject: true, createMergeRequestIn: false });
  });

  it('answers the README box of the project page (readme through blobs)', async () => {
    const data = await run(
      `# project overview: the README below the file list
      query getReadme($projectPath: ID!, $ref: String!, $readmePath: String!) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository {
            __typename
            blobs(paths: [$readmePath], ref: $ref) {
              __typename
              nodes { __typename id name path webPath rawTextBlob fileType richViewer { __typename type fileType } }
            }
          }
        }
      }`,
      { projectPath: fullPath, ref: 'main', readmePath: 'README.md' },
    );
    expect(data.project.repository.blobs.nodes).toEqual([
      {
        __typename: 'RepositoryBlob',
        id: `gid://gitlab/Blob/${git('rev-parse', 'main:README.md')}`,
        name: 'README.md',
        path: 'README.md',
        webPath: `/${fullPath}/-/blob/main/README.md`,
        rawTextBlob: git('show', 'main:README.md').concat('\n'),
        fileType: 'readme',
        richViewer: { __typename: 'BlobViewer', type: 'rich', fileType: 'markup' },
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Commits and refs

describe('commit and ref documents', () => {
  it('answers the commit page with its summary, per-file stats and diffs', async () => {
    const data = await run(
      `# commit page: header, changed-files summary and diffs
      query getCommitDetails($projectPath: ID!, $ref: String!) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository {
            __typename
            commit(ref: $ref) {
              __typename
              id
              sha
              shortId
              title
              fullTitle
              fullTitleHtml
              description
              descriptionHtml
              webUrl
              webPath
              committerName
              committedDate
              signatureHtml
              signature { __typename verificationStatus commitSha }
              diffStatsSummary { __typename additions deletions changes fileCount }
              diffStats { __typename path additions deletions }
              diffs { __typename oldPath newPath aMode bMode newFile deletedFile renamedFile collapsed tooLarge diff }
            }
          }
        }
      }`,
      { projectPath: fullPath, ref: head },
    );
    const commit = data.project.repository.commit;
    expect(commit).toMatchObject({
      sha: head,
      shortId: head.slice(0, 8),
      fullTitle: 'Grow the app',
      fullTitleHtml: 'Grow the app',
      description: 'Two lines more, one less.',
      webUrl: `${t.config.externalUrl}/${fullPath}/-/commit/${head}`,
      signatureHtml: null,
      signature: null,
      diffStatsSummary: { __typename: 'DiffStatsSummary', additions: 2, deletions: 1, changes: 3, fileCount: 1 },
      diffStats: [{ __typename: 'DiffStats', path: 'src/app.ts', additions: 2, deletions: 1 }],
    });
    expect(commit.diffs).toEqual([
      {
        __typename: 'Diff',
        oldPath: 'src/app.ts',
        newPath: 'src/app.ts',
        aMode: '100644',
        bMode: '100644',
        newFile: false,
        deletedFile: false,
        renamedFile: false,
        collapsed: false,
        tooLarge: false,
        diff: expect.stringContaining('+export const four = 4;'),
      },
    ]);
    const layoutStats = (
      await run(
        `query($p: ID!, $r: String!) { project(fullPath: $p) { repository { commit(ref: $r) { diffStatsSummary { fileCount additions } diffStats(path: "a.txt") { path additions } } } } }`,
        {
          p: fullPath,
          r: layout,
        },
      )
    ).project.repository.commit;
    // The PNG is binary: it changes no lines.
    expect(layoutStats).toEqual({ diffStatsSummary: { fileCount: 5, additions: 5 }, diffStats: [{ path: 'a.txt', additions: 1 }] });
  });

  it('marks a large patch collapsed and a huge one too large, as GitLab limits diffs', async () => {
    const line = `${'x'.repeat(99)}\n`;
    await t
      .api('post', `/projects/${project.id}/repository/commits`)
      .send({
        branch: 'big',
        start_branch: 'main',
        commit_message: 'Big files',
        actions: [
          { action: 'create', file_path: 'medium.txt', content: line.repeat(300) },
          { action: 'create', file_path: 'huge.txt', content: line.repeat(3000) },
        ],
      })
      .expect(201);
    const diffs = (
      await run(`query($p: ID!) { project(fullPath: $p) { repository { commit(ref: "big") { diffs { newPath collapsed tooLarge } } } } }`, { p: fullPath })
    ).project.repository.commit.diffs;
    expect(diffs).toEqual([
      { newPath: 'huge.txt', collapsed: true, tooLarge: true },
      { newPath: 'medium.txt', collapsed: true, tooLarge: false },
    ]);
  });

  it('lists commits committed before and after a time (the commits list)', async () => {
    const COMMITS = `
      # commits page: the history of a ref between two times
      query getCommits($projectPath: ID!, $ref: String!, $committedBefore: Time, $committedAfter: Time, $first: Int, $after: String) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository {
            __typename
            commits(ref: $ref, committedBefore: $committedBefore, committedAfter: $committedAfter, first: $first, after: $after) {
              __typename
              pageInfo { __typename hasNextPage endCursor }
              nodes { __typename id sha title authoredDate webPath author { __typename name } }
            }
          }
        }
      }`;
    const all = (await run(COMMITS, { projectPath: fullPath, ref: 'main', first: 10 })).project.repository.commits;
    expect(all.nodes.map((c: { sha: string }) => c.sha).slice(0, 2)).toEqual([head, layout]);
    expect(all.nodes).toHaveLength(3);
    expect(all.nodes[0]).toMatchObject({ __typename: 'Commit', title: 'Grow the app', author: { __typename: 'UserCore', name: t.root.name } });
    const past = (await run(COMMITS, { projectPath: fullPath, ref: 'main', committedBefore: '2000-01-01T00:00:00Z' })).project.repository.commits;
    expect(past.nodes).toEqual([]);
    const future = (await run(COMMITS, { projectPath: fullPath, ref: 'main', committedAfter: '2099-01-01T00:00:00Z' })).project.repository.commits;
    expect(future.nodes).toEqual([]);
    const since = (await run(COMMITS, { projectPath: fullPath, ref: 'main', committedAfter: '2000-01-01T00:00:00Z', first: 1 })).project.repository.commits;
    expect(since).toMatchObject({ pageInfo: { hasNextPage: true }, nodes: [{ sha: head }] });
  });

  it('lists the commits of one author (the commits list filtered by author)', async () => {
    const BY_AUTHOR = `
      # commits page: the author filter
      query getCommitsByAuthor($projectPath: ID!, $ref: String!, $author: String, $first: Int) {
        project(fullPath: $projectPath) {
          __typename
          id
          repository { __typename commits(ref: $ref, author: $author, first: $first) { __typename nodes { __typename sha authorName } } }
        }
      }`;
    const mine = (await run(BY_AUTHOR, { projectPath: fullPath, ref: 'main', author: t.root.name, first: 10 })).project.repository.commits.nodes;
    expect(mine.map((c: { sha: string }) => c.sha).slice(0, 2)).toEqual([head, layout]);
    const nobody = (await run(BY_AUTHOR, { projectPath: fullPath, ref: 'main', author: 'nobody-at-all', first: 10 })).project.repository.commits.nodes;
    expect(nobody).toEqual([]);
  });

  it('answers the ref selector and the branch dropdowns with branch names (branchNames)', async () => {
    const data = await run(
      `# ref selector / new branch dropdown: branch names matching a pattern
      query getBranchNames($projectPath: ID!, $searchPattern: String!, $offset: Int!, $limit: Int!) {
        project(fullPath: $projectPath) { __typename id repository { __typename rootRef branchNames(searchPattern: $searchPattern, offset: $offset, limit: $limit) } }
      }`,
      { projectPath: fullPath, searchPattern: '*', offset: 0, limit: 10 },
    );
    expect(data.project.repository).toEqual({ __typename: 'Repository', rootRef: 'main', branchNames: ['big', 'feature', 'lfs', 'main', 'modules', 'signed'] });
    const feat = await run(`query($p: ID!) { project(fullPath: $p) { repository { branchNames(searchPattern: "fea*", offset: 0, limit: 5) } } }`, {
      p: fullPath,
    });
    expect(feat.project.repository.branchNames).toEqual(['feature']);
  });

  it('commits from the Web IDE / edit page (commitCreate with typed variables)', async () => {
    const data = await run(
      `# Web IDE and single-file editor: one commit of every change (commitCreate)
      mutation commitCreate($projectPath: ID!, $branch: String!, $startBranch: String, $message: String!, $actions: [CommitAction!]!) {
        commitCreate(input: { projectPath: $projectPath, branch: $branch, startBranch: $startBranch, message: $message, actions: $actions }) {
          __typename
          clientMutationId
          errors
          commitPipelinePath
          content
          commit { __typename id sha title webPath }
        }
      }`,
      {
        projectPath: fullPath,
        branch: 'ide-edit',
        startBranch: 'main',
        message: 'Edit in the IDE',
        actions: [
          { action: 'UPDATE', filePath: 'a.txt', content: 'A\n', encoding: 'TEXT', lastCommitId: layout },
          { action: 'CREATE', filePath: 'new/file.md', content: 'new\n' },
        ],
      },
      dev.token,
    );
    const sha = git('rev-parse', 'ide-edit');
    expect(data.commitCreate).toEqual({
      __typename: 'CommitCreatePayload',
      clientMutationId: null,
      errors: [],
      commitPipelinePath: null,
      content: ['A\n', 'new\n'],
      commit: { __typename: 'Commit', id: `gid://gitlab/CommitPresenter/${sha}`, sha, title: 'Edit in the IDE', webPath: `/${fullPath}/-/commit/${sha}` },
    });
    expect(git('show', 'ide-edit:new/file.md')).toBe('new');
  });
});

// ---------------------------------------------------------------------------------------------
// Authorization and cost

describe('authorization and cost of the new fields', () => {
  it('shows a Guest of a private project no blob, tree, last commit or commit', async () => {
    for (const query of [
      `query($p: ID!) { project(fullPath: $p) { repository { blobs(paths: ["a.txt"], ref: "main") { nodes { rawTextBlob canModifyBlob simpleViewer { type } } } } } }`,
      `query($p: ID!) { project(fullPath: $p) { repository { paginatedTree(ref: "main") { nodes { blobs { nodes { name } } } } } } }`,
      `query($p: ID!) { project(fullPath: $p) { repository { lastCommit(ref: "main") { sha } } } }`,
      `query($p: ID!) { project(fullPath: $p) { repository { commit(ref: "main") { sha diffStats { path } } } } }`,
    ]) {
      const res = await t.graphql(query, { p: fullPath }, guest.token);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body.data)).not.toMatch(/a\.txt|"sha":"[0-9a-f]{40}"|"type":"simple"/);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    // Anonymous: the private project does not exist.
    const anonymous = await t.graphql(
      `query($p: ID!) { project(fullPath: $p) { repository { paginatedTree(ref: "main") { nodes { blobs { nodes { name } } } } } } }`,
      { p: fullPath },
      null,
    );
    expect(anonymous.body).toEqual({ data: { project: null } });
  });

  it('counts paginatedTree and its entry lists as connections: three pages at once exceed the ceiling', async () => {
    const one = (alias: string) =>
      `${alias}: paginatedTree(ref: "main") { pageInfo { endCursor hasNextPage } nodes { trees { nodes { id sha name flatPath type webPath } } blobs { nodes { id sha name flatPath type webPath lfsOid } } submodules { nodes { id sha name flatPath type webUrl } } } }`;
    const fits = await t.graphql(`query($p: ID!) { project(fullPath: $p) { repository { ${one('a')} } } }`, { p: fullPath }, dev.token);
    expect(fits.body.errors).toBeUndefined();
    const over = await t.graphql(`query($p: ID!) { project(fullPath: $p) { repository { ${one('a')} ${one('b')} ${one('c')} } } }`, { p: fullPath }, dev.token);
    expect(over.body.errors[0].message).toMatch(/^Query has complexity of \d+, which exceeds max complexity of 250$/);
    expect(over.body.data).toBeUndefined();
  });
});
