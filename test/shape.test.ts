import { describe, expect, it } from 'vitest';
import { omit, withoutNull } from '../src/rest/shape.ts';

// Shapers build GitLab's entities from operation data; the answer's bytes follow key order.
describe('REST shaping helpers', () => {
  it('omit drops the keys named and keeps the others in their order', () => {
    const entity = { id: 1, web_url: 'u', title: 't', stats: undefined, parent_ids: [] };
    const copy = omit(entity, ['web_url', 'stats']);
    expect(Object.keys(copy)).toEqual(['id', 'title', 'parent_ids']);
    expect(JSON.stringify({ ...copy, web_url: entity.web_url })).toBe('{"id":1,"title":"t","parent_ids":[],"web_url":"u"}');
    expect(entity.web_url).toBe('u'); // the operation's data is left as it was
  });

  it('omit puts the copied keys after those the leading object holds, overriding none of them', () => {
    const member = { user: { id: 7, username: 'u' }, access_level: 30, expires_at: null, id: 99 };
    const entity = omit(member, ['user', 'access_level'], { ...member.user, access_level: member.access_level });
    // A key both hold keeps its leading position and takes the copied value, as a spread would.
    expect(JSON.stringify(entity)).toBe('{"id":99,"username":"u","access_level":30,"expires_at":null}');
  });

  it('withoutNull drops only the named keys that are null or undefined, in order', () => {
    const links = { self: 's', edit_url: null, opened: 'o', closed: undefined };
    expect(JSON.stringify(withoutNull(links, ['edit_url']))).toBe('{"self":"s","opened":"o"}');
    expect(Object.keys(withoutNull(links, ['edit_url']))).toEqual(['self', 'opened', 'closed']);
    expect(withoutNull({ self: 's', edit_url: 'e' }, ['edit_url'])).toEqual({ self: 's', edit_url: 'e' });
  });
});
