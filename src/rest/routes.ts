import { routes as users } from '../modules/users/rest.ts';
import { routes as groups } from '../modules/groups/rest.ts';
import { routes as projects } from '../modules/projects/rest.ts';
import { routes as members } from '../modules/members/rest.ts';
import { routes as milestones } from '../modules/milestones/rest.ts';
import { routes as labels } from '../modules/labels/rest.ts';
import { routes as meta } from '../modules/meta/rest.ts';
import { routes as commits } from '../modules/commits/rest.ts';
import { routes as repositoryFiles } from '../modules/repository-files/rest.ts';
import { routes as branches } from '../modules/branches/rest.ts';
import { routes as tags } from '../modules/tags/rest.ts';
import { routes as archives, webRoutes as archiveWebRoutes } from '../modules/archives/rest.ts';
import { routes as jobTokens } from '../modules/job-tokens/rest.ts';
import { routes as releaseLinks } from '../modules/release-links/rest.ts';
import { routes as releases, webRoutes as releaseWebRoutes } from '../modules/releases/rest.ts';

export const allRoutes = [...meta, ...users, ...groups, ...projects, ...members, ...milestones, ...labels, ...commits, ...repositoryFiles, ...branches, ...tags, ...releases, ...releaseLinks, ...archives, ...jobTokens];

/** Routes under a project's web address (`/<full_path>/-/...`), for links the API hands out. */
export const allWebRoutes = [...releaseWebRoutes, ...archiveWebRoutes];
