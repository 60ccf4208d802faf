# A second opinion from a real client: python-gitlab 3.12 (Debian's python3-gitlab) against a running
# forgegate. Not part of npm test (it needs the Debian package): start a server with
# INITIAL_ROOT_TOKEN set, then FORGEGATE_URL=http://127.0.0.1:3000 FORGEGATE_TOKEN=<token> /usr/bin/python3 scripts/python-gitlab-check.py
import os
import base64, gitlab, sys
gl = gitlab.Gitlab(os.environ['FORGEGATE_URL'], private_token=os.environ['FORGEGATE_TOKEN'])
ok = 0; fail = []
def step(name, fn):
    global ok
    try:
        r = fn(); ok += 1; print('ok  ', name, '->', r)
    except Exception as e:
        fail.append(name); print('FAIL', name, type(e).__name__, e)
step('auth', lambda: (gl.auth(), gl.user.username)[1])
step('version', lambda: gl.version())
u = None
def mkuser():
    global u
    u = gl.users.create({'username': 'pyuser', 'name': 'Py User', 'email': 'py@example.com', 'password': 'secret-pass-1234', 'skip_confirmation': True}); return u.id
step('users.create', mkuser)
step('users.get', lambda: gl.users.get(u.id).username)
step('users.list', lambda: len(gl.users.list(get_all=True)))
g = None
def mkgroup():
    global g
    g = gl.groups.create({'name': 'PyGroup', 'path': 'pygroup'}); return g.full_path
step('groups.create', mkgroup)
def editgroup():
    g.description = 'edited by python-gitlab'; g.save(); return gl.groups.get(g.id).description
step('groups.save (PUT /groups/:id)', editgroup)
p = None
def mkproject():
    global p
    p = gl.projects.create({'name': 'pyapp', 'namespace_id': g.id, 'initialize_with_readme': True, 'topics': ['py']}); return p.path_with_namespace
step('projects.create', mkproject)
step('projects.get', lambda: gl.projects.get(p.id).topics)
def editproject():
    p.description = 'from python'; p.save(); return gl.projects.get(p.id).description
step('projects.save', editproject)
step('members.create', lambda: p.members.create({'user_id': u.id, 'access_level': 30}).access_level)
step('group members.create', lambda: g.members.create({'user_id': u.id, 'access_level': 20}).username)
step('members.list', lambda: [m.username for m in p.members.list()])
def labels():
    l = p.labels.create({'name': 'bug', 'color': '#ff0000'})
    got = p.labels.get(l.id)
    got.description = 'bugs'; got.save()
    again = p.labels.get('bug').description
    p.labels.delete(l.id)
    return again
step('labels create/get/save/delete', labels)
def milestones():
    m = p.milestones.create({'title': 'v1'}); m.state_event = 'close'; m.save(); return p.milestones.get(m.id).state
step('milestones create/save', milestones)
def files():
    f = p.files.create({'file_path': 'src/app.py', 'branch': 'main', 'content': 'print(1)\n', 'commit_message': 'add'})
    got = p.files.get(file_path='src/app.py', ref='main')
    raw = p.files.raw(file_path='src/app.py', ref='main')
    got.content = base64.b64encode(b'print(2)\n').decode(); got.encoding = 'base64'; got.save(branch='main', commit_message='edit')
    return base64.b64decode(p.files.get(file_path='src/app.py', ref='main').content), raw
step('files create/get/raw/save', files)
def commits():
    c = p.commits.create({'branch': 'main', 'commit_message': 'multi', 'actions': [
        {'action': 'create', 'file_path': 'a.txt', 'content': 'a'},
        {'action': 'move', 'file_path': 'src/main.py', 'previous_path': 'src/app.py'},
        {'action': 'chmod', 'file_path': 'a.txt', 'execute_filemode': True}]})
    lst = p.commits.list(ref_name='main', get_all=True)
    diff = c.diff()
    return c.short_id, len(lst), [d['new_path'] for d in diff], c.stats
step('commits create/list/diff', commits)
step('repository_tree', lambda: [e['path'] for e in p.repository_tree(recursive=True, get_all=True)])
step('repository_compare', lambda: len(p.repository_compare('main~1', 'main')['commits']))
step('branches', lambda: (p.branches.create({'branch': 'feature', 'ref': 'main'}).name, [b.name for b in p.branches.list()]))
step('tags', lambda: (p.tags.create({'tag_name': 'v1.0', 'ref': 'main'}).name, [t.name for t in p.tags.list()]))
def releases():
    r = p.releases.create({'tag_name': 'v1.0', 'name': 'One', 'description': 'first'})
    link = r.links.create({'name': 'bin', 'url': 'https://example.com/bin', 'filepath': '/bin/app'})
    got = p.releases.get('v1.0')
    return got.name, [l.name for l in got.links.list()], len(p.releases.list())
step('releases + links', releases)
step('repository_archive tar.gz', lambda: len(p.repository_archive(format='tar.gz')))
step('repository_archive zip', lambda: len(p.repository_archive(format='zip')))
step('user projects', lambda: len(gl.users.get(u.id).projects.list()))
step('pagination iterator', lambda: len(list(gl.projects.list(iterator=True, per_page=1))))
print(f'{ok} passed, {len(fail)} failed: {fail}')
sys.exit(1 if fail else 0)
