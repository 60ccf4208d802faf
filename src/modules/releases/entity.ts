import type { ReleaseLinkEntityFragment } from '../../generated/operations.ts';
import { param } from '../../rest/declare.ts';
import { enumValue } from '../../rest/shape.ts';
import { LINK_TYPES } from './links.ts';

/** GitLab's link entity: enum values in lower case. */
export const linkEntity = (link: ReleaseLinkEntityFragment) => ({ ...link, link_type: link.link_type?.toLowerCase() });

/** `link_type` of a link, and its GraphQL enum value. */
export const LINK_TYPE = param.oneOf(LINK_TYPES);
export const linkType = (value: (typeof LINK_TYPES)[number] | undefined) => value && enumValue(value);
