"""Does the Dockerfile's build stage hold every target Package.swift declares?

SwiftPM loads the whole manifest before it builds one product, and a target
whose directory is missing stops it ("Source files for target ... should be
located under ..."), so `swift build --product vroom-server` in the image needs
loadtest/ and Benchmarks/ as much as Sources/. With no Docker engine on the
build machines, this reads the COPY instructions instead of running them.

    python3 dockerfile_targets.py DUMP.json [deploy/Dockerfile]

DUMP.json is `swift package dump-package`'s output. Run from the repository
root. Prints one line per problem and exits 1 if there is any.
"""

import fnmatch
import glob
import json
import os
import posixpath
import re
import shlex
import sys

# Where SwiftPM looks for a target that names no `path`, in its order.
DEFAULT_ROOTS = {
    'test': ['Tests'],
    'plugin': ['Plugins'],
}
SOURCE_ROOTS = ['Sources', 'Source', 'src', 'srcs']


def instructions(text):
    """(line number, instruction, arguments) with continuations joined and
    comments (and parser directives) dropped."""
    out, pending, start = [], '', 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith('#')):
            continue
        if pending and stripped.startswith('#'):
            continue  # a comment line inside a continued instruction
        if not pending:
            start = number
        if stripped.endswith('\\'):
            pending += stripped[:-1] + ' '
            continue
        line = pending + stripped
        pending = ''
        op, _, rest = line.partition(' ')
        out.append((start, op.upper(), rest.strip()))
    return out


def copy_arguments(rest):
    """(flags, sources, destination) of a COPY or ADD, shell or JSON form."""
    words = shlex.split(rest, posix=True)
    flags = [w for w in words if w.startswith('--')]
    words = [w for w in words if not w.startswith('--')]
    if rest.lstrip().startswith('[') or (words and words[0].startswith('[')):
        body = rest[rest.index('['):]
        words = json.loads(body)
    return flags, words[:-1], words[-1]


def target_path(target):
    if target.get('path'):
        return posixpath.normpath(target['path'])
    if target['type'] == 'binary' and target.get('url'):
        return None  # downloaded, nothing to copy
    roots = DEFAULT_ROOTS.get(target['type'], SOURCE_ROOTS)
    for root in roots:
        if os.path.isdir(os.path.join(root, target['name'])):
            return f"{root}/{target['name']}"
    return f"{roots[0]}/{target['name']}"


def ignored(path, patterns):
    """True when .dockerignore leaves `path` (or a folder above it) out of the
    build context. Exceptions (`!pattern`) re-include, last match wins."""
    parts = path.split('/')
    verdict = False
    for pattern in patterns:
        negate = pattern.startswith('!')
        pattern = pattern.lstrip('!').strip('/')
        pattern = posixpath.normpath(pattern)
        for depth in range(1, len(parts) + 1):
            if fnmatch.fnmatchcase('/'.join(parts[:depth]), pattern):
                verdict = not negate
                break
    return verdict


def main():
    dump = json.load(open(sys.argv[1]))
    dockerfile = sys.argv[2] if len(sys.argv) > 2 else 'deploy/Dockerfile'
    problems = []

    stages, current = [], None
    for number, op, rest in instructions(open(dockerfile).read()):
        if op == 'FROM':
            current = {'from': rest, 'lines': []}
            stages.append(current)
        elif current is not None:
            current['lines'].append((number, op, rest))
    build = next((s for s in stages
                  if any(op == 'RUN' and re.search(r'\bswift\s+build\b', rest) for _, op, rest in s['lines'])), None)
    if build is None:
        print(f'check-deploy: {dockerfile}: no stage runs `swift build`')
        return 1

    # Follow WORKDIR and the COPYs up to the first `swift build`.
    workdir = '/'
    copies = []  # (line, repository path, image path, is a directory's contents)
    build_workdir = None
    for number, op, rest in build['lines']:
        if op == 'WORKDIR':
            workdir = posixpath.normpath(posixpath.join(workdir, rest.strip('"')))
        elif op in ('COPY', 'ADD'):
            flags, sources, dest = copy_arguments(rest)
            if any(f.startswith('--from=') for f in flags):
                continue
            dest_is_dir = dest.endswith('/') or len(sources) > 1 or any(glob.has_magic(s) for s in sources)
            dest = posixpath.normpath(posixpath.join(workdir, dest))
            for pattern in sources:
                matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
                for src in matches:
                    src = posixpath.normpath(src)
                    if os.path.isdir(src):
                        copies.append((number, src, dest, True))
                    elif dest_is_dir:
                        copies.append((number, src, posixpath.join(dest, posixpath.basename(src)), False))
                    else:
                        copies.append((number, src, dest, False))
        elif op == 'RUN' and re.search(r'\bswift\s+build\b', rest):
            build_workdir = workdir
            break

    def lands_at(path):
        """Where the repository path `path` ends up in the image, if copied."""
        for _, src, dest, contents in copies:
            if src == '.':
                return posixpath.normpath(posixpath.join(dest, path))
            if path == src:
                return dest
            if contents and path.startswith(src + '/'):
                return posixpath.join(dest, path[len(src) + 1:])
        return None

    patterns = []
    if os.path.exists('.dockerignore'):
        patterns = [l.strip() for l in open('.dockerignore') if l.strip() and not l.startswith('#')]

    def check(path, what):
        if not os.path.exists(path):
            problems.append(f'{what}: {path} is not in the repository')
            return
        if ignored(path, patterns):
            problems.append(f'{what}: {path} is excluded from the build context by .dockerignore')
        wanted = posixpath.join(build_workdir, path)
        landed = lands_at(path)
        if landed is None:
            top = path.split('/')[0]
            problems.append(f'{what}: {path} is not copied into the build stage before `swift build` '
                            f'(e.g. `COPY {top} ./{top}` with WORKDIR {build_workdir})')
        elif landed != wanted:
            problems.append(f'{what}: {path} is copied to {landed}, but `swift build` in {build_workdir} looks in {wanted}')

    check('Package.swift', 'the manifest')
    paths = 0
    for target in dump['targets']:
        path = target_path(target)
        if path is None:
            continue
        paths += 1
        check(path, f"{target['type']} target {target['name']}")

    for p in problems:
        print(f'check-deploy: {dockerfile}:', p)
    print(f'check-deploy: {dockerfile}: build stage `{build["from"]}` copies {len(copies)} path(s) into {build_workdir}; '
          f'{paths} target paths of Package.swift checked, {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
