// The repository browser's types (issue 40): repository, trees, blobs and their viewers, commits,
// diffs, signatures, branches and tags, the project permissions their pages read, and the
// mutations of the Web IDE and the branch and tag pages. Facts from GitLab's GraphQL reference
// (app/graphql/types/repository/*, tree/*, commit_type.rb, diff_type.rb, commit_signature_interface.rb,
// project_permissions_type.rb, mutations/commits/create.rb, …).
import type { ReferenceType } from './types.ts';

/** Every connection of ours counts its nodes (graphql/builder.ts): `totalCount` and GitLab's `count`. */
const COUNTS = {
  count: 'Ours on every connection: the shared count field (GitLab has it on some connections only).',
  totalCount: 'Ours on every connection: the shared count field.',
};

const connection = (name: string, node: string, kept: Record<string, string> = {}): ReferenceType[] => [
  { name: `${name}Connection`, fields: { edges: `[${name}Edge]`, nodes: `[${node}]`, pageInfo: 'PageInfo!' }, kept: { ...COUNTS, ...kept } },
  { name: `${name}Edge`, fields: { cursor: 'String!', node: node } },
];

/** A connection type of ours alone (a REST listing's), with the edge type Pothos names after it. */
const ours = (name: string, why: string, edge = `${name}ConnectionEdge`): ReferenceType[] => [
  { name: `${name}Connection`, notGitLab: why },
  { name: edge, notGitLab: why },
];

const PAGE_ARGS = { after: 'String', before: 'String', first: 'Int', last: 'Int' };

const NO_FORKS = 'Forks do not exist here: always false.';
const REST_ONLY = 'Ours: read by the REST routes (GitLab answers them from REST entities, not GraphQL).';

/**
 * This area's parts of types whose fields come from every area (Project, Mutation). They join
 * `types` once every area's part of them is on main: until then the comparison would report the
 * other areas' fields of these types as unexplained.
 */
export const sharedParts: ReferenceType[] = [
  { name: 'Project', fields: { repository: 'Repository' } },
  {
    name: 'Mutation',
    fields: {
      commitCreate: { type: 'CommitCreatePayload', args: { input: 'CommitCreateInput!' } },
      createBranch: { type: 'CreateBranchPayload', args: { input: 'CreateBranchInput!' } },
      branchDelete: { type: 'BranchDeletePayload', args: { input: 'BranchDeleteInput!' } },
    },
    kept: {
      tagCreate: "Ours: GitLab's tags are created over REST only; the REST route runs this mutation.",
      tagDelete: "Ours: GitLab's tags are deleted over REST only; the REST route runs this mutation.",
    },
  },
];

export const types: ReferenceType[] = [
  {
    name: 'Repository',
    fields: {
      blobs: { type: 'RepositoryBlobConnection', args: { ...PAGE_ARGS, paths: '[String!]!', ref: 'String', refType: 'RefType' } },
      branchNames: { type: '[String!]', args: { limit: 'Int!', offset: 'Int!', searchPattern: 'String!' } },
      commit: { type: 'Commit', args: { ref: 'String!' } },
      commits: { type: 'CommitConnection', args: { ...PAGE_ARGS, ref: 'String!', author: 'String', committedAfter: 'Time', committedBefore: 'Time' } },
      empty: 'Boolean!',
      exists: 'Boolean!',
      lastCommit: { type: 'Commit', args: { path: 'String', ref: 'String', refType: 'RefType' } },
      paginatedTree: { type: 'TreeConnection', args: { ...PAGE_ARGS, path: 'String', recursive: 'Boolean', ref: 'String', refType: 'RefType' } },
      rootRef: 'String',
      tree: { type: 'Tree', args: { path: 'String', recursive: 'Boolean', ref: 'String', refType: 'RefType' } },
    },
    kept: {
      archive: "Ours: the archive REST route's operation (GitLab serves archives outside GraphQL).",
      branch: REST_ONLY,
      branches: REST_ONLY,
      tag: REST_ONLY,
      tags: REST_ONLY,
      compare: REST_ONLY,
      'commits.ref': 'Optional here: the default branch when left out, as the REST commits listing reads it.',
      'commits.since': "The REST listing's name for committedAfter.",
      'commits.until': "The REST listing's name for committedBefore.",
      'commits.path': "The REST listing's filter.",
      'commits.all': "The REST listing's filter.",
      'commits.firstParent': "The REST listing's filter.",
      'commits.order': "The REST listing's filter.",
    },
  },
  ...connection('RepositoryBlob', 'RepositoryBlob'),
  {
    name: 'RepositoryBlob',
    fields: {
      archived: 'Boolean',
      base64EncodedBlob: 'String',
      blame: { type: 'Blame', args: { fromLine: 'Int', toLine: 'Int' } },
      blamePath: 'String',
      canCurrentUserPushToBranch: 'Boolean',
      canModifyBlob: 'Boolean',
      canModifyBlobWithWebIde: 'Boolean!',
      codeNavigationPath: 'String',
      editBlobPath: 'String',
      environmentExternalUrlForRouteMap: 'String',
      environmentFormattedExternalUrl: 'String',
      externalStorage: 'String',
      externalStorageUrl: 'String',
      fileType: 'String',
      findFilePath: 'String',
      forkAndEditPath: 'String',
      forkAndViewPath: 'String',
      gitpodBlobUrl: 'String',
      historyPath: 'String',
      id: 'ID!',
      ideEditPath: 'String',
      ideForkAndEditPath: 'String',
      language: 'String',
      lfsOid: 'String',
      mode: 'String',
      name: 'String',
      oid: 'String!',
      path: 'String!',
      permalinkPath: 'String',
      pipelineEditorPath: 'String',
      projectBlobPathRoot: 'String',
      rawBlob: 'String',
      rawPath: 'String',
      rawSize: 'BigInt',
      rawTextBlob: 'String',
      replacePath: 'String',
      richViewer: 'BlobViewer',
      simpleViewer: 'BlobViewer!',
      size: 'BigInt',
      storedExternally: 'Boolean',
      webPath: 'String',
    },
    kept: {
      size: 'Float: the schema has no BigInt scalar; a Float holds every size up to 2^53 bytes exactly.',
      rawSize: 'Float: the schema has no BigInt scalar; a Float holds every size up to 2^53 bytes exactly.',
      ref: "Ours: the ref as asked, for the files REST route's `ref`.",
      commitSha: "Ours: the commit the ref resolved to, for the files REST route's `commit_id`.",
      executeFilemode: "Ours: the files REST route's `execute_filemode`.",
      contentSha256: "Ours: the files REST route's `content_sha256`.",
      lastCommit: "Ours: the files REST route's `last_commit_id`.",
    },
  },
  {
    name: 'BlobViewer',
    fields: {
      collapsed: 'Boolean!',
      fileType: 'String!',
      loadAsync: 'Boolean!',
      loadingPartialName: 'String!',
      renderError: 'String',
      tooLarge: 'Boolean!',
      type: 'BlobViewersType!',
    },
  },
  { name: 'BlobViewersType', values: ['auxiliary', 'rich', 'simple'] },
  { name: 'RefType', values: ['HEADS', 'TAGS'] },
  { name: 'Blame', fields: { firstLine: 'String', groups: '[Groups!]' } },
  {
    name: 'Groups',
    fields: { commit: 'Commit!', lineno: 'Int!', lines: '[String!]!', span: 'Int!' },
    kept: {
      commitData: 'Not served: the blame page reads the commit itself.',
      previousPath: 'Not served: renames are not followed by blame here.',
    },
  },
  // Trees
  ...connection('Tree', 'Tree'),
  {
    name: 'Tree',
    fields: {
      blobs: { type: 'BlobConnection!', args: PAGE_ARGS },
      lastCommit: 'Commit',
      submodules: { type: 'SubmoduleConnection!', args: PAGE_ARGS },
      trees: { type: 'TreeEntryConnection!', args: PAGE_ARGS },
    },
    kept: { entries: "Ours: every entry in the REST tree listing's order, with its keyset `pageToken`." },
  },
  {
    name: 'Entry',
    fields: { flatPath: 'String!', id: 'ID!', name: 'String!', path: 'String!', sha: 'String!', type: 'EntryType!' },
  },
  { name: 'EntryType', values: ['blob', 'commit', 'tree'] },
  {
    name: 'TreeEntry',
    fields: { flatPath: 'String!', id: 'ID!', name: 'String!', path: 'String!', sha: 'String!', type: 'EntryType!', webPath: 'String', webUrl: 'String' },
    kept: { mode: "Ours: the REST tree listing's `mode`." },
  },
  {
    name: 'Blob',
    fields: {
      flatPath: 'String!',
      id: 'ID!',
      lfsOid: 'String',
      mode: 'String',
      name: 'String!',
      path: 'String!',
      sha: 'String!',
      type: 'EntryType!',
      webPath: 'String',
      webUrl: 'String',
    },
  },
  {
    name: 'Submodule',
    fields: { flatPath: 'String!', id: 'ID!', name: 'String!', path: 'String!', sha: 'String!', treeUrl: 'String', type: 'EntryType!', webUrl: 'String' },
    kept: { mode: "Ours: the REST tree listing's `mode`.", webPath: 'Ours: null (a submodule lives at another address: webUrl).' },
  },
  ...connection('TreeEntry', 'TreeEntry'),
  ...connection('Blob', 'Blob'),
  ...connection('Submodule', 'Submodule'),
  ...ours('Entry', "Tree.entries: every entry of a tree in the REST tree listing's order.", 'EntryEdge'),
  // Commits
  ...connection('Commit', 'Commit'),
  {
    name: 'Commit',
    fields: {
      author: 'UserCore',
      authorEmail: 'String',
      authorGravatar: 'String',
      authorName: 'String',
      authoredDate: 'Time',
      committedDate: 'Time',
      committerEmail: 'String',
      committerName: 'String',
      description: 'String',
      descriptionHtml: 'String',
      diffs: '[Diff!]',
      fullTitle: 'String',
      fullTitleHtml: 'String',
      id: 'ID!',
      message: 'String',
      pipelines: { type: 'PipelineConnection', args: { ...PAGE_ARGS, ref: 'String', sha: 'String' } },
      sha: 'String!',
      shortId: 'String!',
      signature: 'CommitSignature',
      signatureHtml: 'String',
      title: 'String',
      titleHtml: 'String',
      webPath: 'String!',
      webUrl: 'String!',
    },
    kept: {
      parentIds: "Ours: the commit REST entity's `parent_ids`.",
      project: 'Ours: the project the commit was read from (REST entities link to it).',
      stats: "Ours: the commit REST entity's `stats`.",
      diffStats: "The commit page's per-file changes, typed as GitLab's MergeRequest.diffStats.",
      diffStatsSummary: "The commit page's summary, typed as GitLab's MergeRequest.diffStatsSummary.",
      'pipelines.status': 'Pipelines do not exist here: the list is always empty, so no status filter.',
    },
  },
  { name: 'CommitStats', notGitLab: "Commit.stats: the commit REST entity's `stats` (additions, deletions, total)." },
  { name: 'CommitsOrder', notGitLab: "Repository.commits(order:): the REST commits listing's `order` (default, topo)." },
  { name: 'RepositoryComparison', notGitLab: "Repository.compare: the REST compare route's answer (GitLab has no GraphQL compare)." },
  {
    name: 'Diff',
    fields: {
      aMode: 'String',
      bMode: 'String',
      collapsed: 'Boolean',
      deletedFile: 'String',
      diff: 'String',
      newFile: 'String',
      newPath: 'String',
      oldPath: 'String',
      renamedFile: 'String',
      tooLarge: 'Boolean',
    },
    kept: {
      deletedFile: "Boolean: GitLab types it String and answers 'true'/'false'; the REST diff entity's boolean is read from it.",
      newFile: "Boolean: GitLab types it String and answers 'true'/'false'; the REST diff entity's boolean is read from it.",
      renamedFile: "Boolean: GitLab types it String and answers 'true'/'false'; the REST diff entity's boolean is read from it.",
      generatedFile: "Ours: the REST diff entity's `generated_file`.",
    },
  },
  { name: 'DiffStats', fields: { additions: 'Int!', deletions: 'Int!', path: 'String!' } },
  { name: 'DiffStatsSummary', fields: { additions: 'Int!', changes: 'Int!', deletions: 'Int!', fileCount: 'Int!' } },
  // Signatures: read for their kind and key, verified against no key (none are kept).
  {
    name: 'CommitSignature',
    fields: { commitSha: 'String', project: 'Project', verificationStatus: 'VerificationStatus' },
  },
  {
    name: 'GpgSignature',
    fields: { commitSha: 'String', gpgKeyPrimaryKeyid: 'String', project: 'Project', verificationStatus: 'VerificationStatus' },
    kept: {
      gpgKeyUserEmail: 'Not served: no GPG keys are kept.',
      gpgKeyUserName: 'Not served: no GPG keys are kept.',
      user: 'Not served: no GPG keys are kept.',
    },
  },
  {
    name: 'X509Signature',
    fields: { commitSha: 'String', project: 'Project', verificationStatus: 'VerificationStatus', x509Certificate: 'X509Certificate' },
    kept: { user: 'Not served: no certificates are kept.' },
  },
  {
    name: 'SshSignature',
    fields: { commitSha: 'String', keyFingerprintSha256: 'String', project: 'Project', verificationStatus: 'VerificationStatus' },
    kept: { key: 'Not served: no SSH keys are kept.', user: 'Not served: no SSH keys are kept.' },
  },
  {
    name: 'X509Certificate',
    fields: { id: 'ID!', subject: 'String!', subjectKeyIdentifier: 'String!', x509Issuer: 'X509Issuer!' },
    kept: {
      certificateStatus: 'Not served: no certificates are kept.',
      createdAt: 'Not served: no certificates are kept.',
      email: 'Not served: no certificates are kept.',
      serialNumber: 'Not served: no certificates are kept.',
      updatedAt: 'Not served: no certificates are kept.',
    },
  },
  {
    name: 'X509Issuer',
    fields: { id: 'ID!', subject: 'String', subjectKeyIdentifier: 'String' },
    kept: {
      createdAt: 'Not served: no certificates are kept.',
      crlUrl: 'Not served: no certificates are kept.',
      updatedAt: 'Not served: no certificates are kept.',
    },
  },
  {
    name: 'VerificationStatus',
    values: [
      'MULTIPLE_SIGNATURES',
      'OTHER_USER',
      'REVOKED_KEY',
      'SAME_USER_DIFFERENT_EMAIL',
      'UNKNOWN_KEY',
      'UNVERIFIED',
      'UNVERIFIED_KEY',
      'VERIFIED',
      'VERIFIED_CA',
      'VERIFIED_SYSTEM',
    ],
  },
  // Pipelines do not exist here: Commit.pipelines is always empty; these are the fields the last-commit widget selects.
  ...connection('Pipeline', 'Pipeline'),
  { name: 'Pipeline', fields: { detailedStatus: 'DetailedStatus!', id: 'ID!' } },
  {
    name: 'DetailedStatus',
    fields: { detailsPath: 'String', group: 'String', icon: 'String', id: 'String!', label: 'String', text: 'String', tooltip: 'String' },
  },
  // Branches and tags
  {
    name: 'Branch',
    fields: { commit: 'Commit', name: 'String!' },
    kept: {
      canPush: "Ours: the branches REST entity's `can_push`.",
      default: "Ours: the branches REST entity's `default`.",
      developersCanMerge: "Ours: the branches REST entity's `developers_can_merge`.",
      developersCanPush: "Ours: the branches REST entity's `developers_can_push`.",
      merged: "Ours: the branches REST entity's `merged`.",
      protected: "Ours: the branches REST entity's `protected`.",
      webUrl: "Ours: the branches REST entity's `web_url`.",
    },
  },
  ...ours('RepositoryBranches', 'Repository.branches: the REST branches listing.'),
  {
    name: 'Tag',
    fields: { commit: 'Commit', message: 'String', name: 'String!' },
    kept: {
      createdAt: "Ours: the tags REST entity's `created_at`.",
      protected: "Ours: the tags REST entity's `protected`.",
      release: "Ours (the releases area's): the tags REST entity's `release`.",
      target: "Ours: the tags REST entity's `target`.",
    },
  },
  ...ours('RepositoryTags', 'Repository.tags: the REST tags listing.'),
  { name: 'TagOrderBy', notGitLab: "Repository.tags(orderBy:): the REST tags listing's `order_by`." },
  {
    name: 'ProjectPermissions',
    fields: {
      adminProject: 'Boolean!',
      changeVisibilityLevel: 'Boolean!',
      createLabel: 'Boolean!',
      createMergeRequestFrom: 'Boolean!',
      createMergeRequestIn: 'Boolean!',
      createRelease: 'Boolean!',
      destroyRelease: 'Boolean!',
      downloadCode: 'Boolean!',
      forkProject: 'Boolean!',
      pushCode: 'Boolean!',
      readCode: 'Boolean!',
      readMergeRequest: 'Boolean!',
      readProject: 'Boolean!',
      readProjectMember: 'Boolean!',
      removeProject: 'Boolean!',
      renameProject: 'Boolean!',
      updateRelease: 'Boolean!',
    },
    kept: { forkProject: NO_FORKS },
  },
  // Mutations
  {
    name: 'CommitCreateInput',
    fields: {
      actions: '[CommitAction!]!',
      branch: 'String!',
      clientMutationId: 'String',
      message: 'String!',
      projectPath: 'ID!',
      startBranch: 'String',
    },
    kept: {
      projectPath: 'Optional here: REST names the project by id (projectId) instead.',
      projectId: "Ours: the REST route's `:id`.",
      startSha: "Ours: the REST commits route's `start_sha`.",
      force: "Ours: the REST commits route's `force`.",
      authorName: "Ours: the REST commits route's `author_name`.",
      authorEmail: "Ours: the REST commits route's `author_email`.",
    },
  },
  {
    name: 'CommitCreatePayload',
    fields: { clientMutationId: 'String', commit: 'Commit', commitPipelinePath: 'String', content: '[String!]', errors: '[String!]!' },
  },
  {
    name: 'CommitAction',
    fields: {
      action: 'CommitActionMode!',
      content: 'String',
      encoding: 'CommitEncoding',
      executeFilemode: 'Boolean',
      filePath: 'String!',
      lastCommitId: 'String',
      previousPath: 'String',
    },
  },
  { name: 'CommitActionMode', values: ['CHMOD', 'CREATE', 'DELETE', 'MOVE', 'UPDATE'] },
  { name: 'CommitEncoding', values: ['BASE64', 'TEXT'] },
  {
    name: 'CreateBranchInput',
    fields: { clientMutationId: 'String', name: 'String!', projectPath: 'ID!', ref: 'String!' },
    kept: { projectPath: 'Optional here: REST names the project by id (projectId) instead.', projectId: "Ours: the REST route's `:id`." },
  },
  { name: 'CreateBranchPayload', fields: { branch: 'Branch', clientMutationId: 'String', errors: '[String!]!' } },
  {
    name: 'BranchDeleteInput',
    fields: { clientMutationId: 'String', name: 'String!', projectPath: 'ID!' },
    kept: { projectPath: 'Optional here: REST names the project by id (projectId) instead.', projectId: "Ours: the REST route's `:id`." },
  },
  { name: 'BranchDeletePayload', fields: { branch: 'Branch', clientMutationId: 'String', errors: '[String!]!' } },
  { name: 'TagCreateInput', notGitLab: 'Mutation.tagCreate: the REST tag creation route (GitLab creates tags over REST only).' },
  { name: 'TagCreatePayload', notGitLab: 'Mutation.tagCreate: the REST tag creation route (GitLab creates tags over REST only).' },
  { name: 'TagDeleteInput', notGitLab: 'Mutation.tagDelete: the REST tag deletion route (GitLab deletes tags over REST only).' },
  { name: 'TagDeletePayload', notGitLab: 'Mutation.tagDelete: the REST tag deletion route (GitLab deletes tags over REST only).' },
];
