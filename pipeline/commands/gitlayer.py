"""The git layer every git-native command uses (GitPython): the repository, files of a
commit's tree read without a checkout, DVC experiment refs, and DVC's hashes computed from
git objects. Nothing here runs a stage; no stage imports it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


class GitError(Exception):
    """Bad input for a git-native command: not a repository, unknown op, bad revision."""


# ------------------------------------------------------------------ reading git objects


def open_repo(path: str | Path = "."):
    """The git repository holding `path`, or a GitError that says what is wrong."""
    import git

    try:
        return git.Repo(Path(path).resolve(), search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitError(f"{Path(path).resolve()} is not inside a git repository") from None


class TreeReader:
    """JSON and YAML files of commits, parsed once per blob (most commits share most files)."""

    def __init__(self):
        self._parsed: dict[str, object] = {}
        self.md5s: dict[str, str] = {}  # git object id -> DVC's md5 of it (pipeline.commands.verify)

    @staticmethod
    def entry(tree, path: str):
        """The blob or tree at `path` in `tree`, or None."""
        try:
            return tree / path
        except KeyError:
            return None

    def load(self, tree, path: str):
        """A JSON (or YAML) file of a commit's tree, parsed; None when absent or unreadable."""
        blob = self.entry(tree, path)
        if blob is None or blob.type != "blob":
            return None
        if blob.hexsha not in self._parsed:
            data = blob.data_stream.read()
            try:
                if path.endswith((".yaml", ".yml", ".lock")):
                    import yaml

                    self._parsed[blob.hexsha] = yaml.safe_load(data)
                else:
                    self._parsed[blob.hexsha] = json.loads(data)
            except ValueError:  # yaml.YAMLError and json.JSONDecodeError are ValueErrors
                self._parsed[blob.hexsha] = None
        return self._parsed[blob.hexsha]


def experiment_refs(repo) -> dict[str, list[tuple[str, object]]]:
    """DVC experiments by baseline commit: {baseline sha: [(name, exp commit), ...]}.

    DVC keeps each finished experiment as a commit at refs/exps/<sha[:2]>/<sha[2:]>/<name>,
    its parent being the baseline. Queue and executor refs (refs/exps/celery, exec, ...)
    have another shape and are skipped.
    """
    found: dict[str, list] = {}
    out = repo.git.for_each_ref("refs/exps/", format="%(refname) %(objectname)")
    for line in out.splitlines():
        ref, sha = line.split()
        parts = ref.split("/")
        if len(parts) != 5 or len(parts[2]) != 2 or len(parts[3]) != 38:
            continue
        found.setdefault(parts[2] + parts[3], []).append((parts[4], repo.commit(sha)))
    for exps in found.values():
        exps.sort(key=lambda e: e[1].committed_date)
    return found


def resolve(repo, rev: str):
    try:
        return repo.commit(rev)
    except Exception:
        raise GitError(f"unknown revision {rev!r}") from None


# --------------------------------------------------------------- DVC's hashes of git objects


def blob_md5(blob) -> str:
    return hashlib.md5(blob.data_stream.read()).hexdigest()


def tree_md5(tree) -> str:
    """DVC's hash of a folder: md5 of the JSON list of its files' md5s, sorted by path."""
    entries = []
    for item in tree.traverse():
        if item.type != "blob" or "__pycache__" in item.path.split("/"):
            continue  # .dvcignore keeps __pycache__ out of DVC's hash too
        entries.append({"md5": blob_md5(item), "relpath": item.path[len(tree.path) + 1 :]})
    entries.sort(key=lambda e: e["relpath"])
    return hashlib.md5(json.dumps(entries, sort_keys=True).encode()).hexdigest() + ".dir"


def object_md5(obj, memo: dict) -> str:
    if obj.hexsha not in memo:  # git object ids are content hashes: one md5 per content
        memo[obj.hexsha] = tree_md5(obj) if obj.type == "tree" else blob_md5(obj)
    return memo[obj.hexsha]


# ------------------------------------------------------------------------- the index


def staged_paths(repo) -> list[str]:
    """Paths the next commit changes, against HEAD (every staged path on a first commit).
    GitPython's `repo.git` inherits GIT_INDEX_FILE, which `git commit -a`/`-o` set."""
    if repo.head.is_valid():
        out = repo.git.diff("--cached", "--name-only", "--no-renames", "-z", "HEAD")
    else:
        out = repo.git.ls_files("-z")
    return [p for p in out.split("\0") if p]


def index_tree(repo):
    """The index as a root tree object (`git write-tree`); the index itself is untouched.
    (`repo.tree(sha)` leaves the path unset, which `tree / "file"` needs: a root has "".)"""
    from git.objects import Tree
    from gitdb.util import hex_to_bin

    return Tree(repo, hex_to_bin(repo.git.write_tree()), Tree.tree_id << 12, "")


def export_index(repo, dest: Path) -> Path:
    """Every staged file, as staged, under `dest` (`git checkout-index`)."""
    repo.git.checkout_index("-a", f"--prefix={dest}/")
    return dest
