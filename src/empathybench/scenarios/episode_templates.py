"""Load an episode template version (v2 and later), hash it, and check it from the shell.

The rules themselves live in ``episode_checks``; content writers run

    python -m empathybench.scenarios.episode_templates [--version v3] [--file EPISODES.yaml]

to check their work without the generator.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import yaml

from empathybench.scenarios.episode_checks import check_episode_templates
from empathybench.scenarios.episode_models import EpisodeTemplateSet
from empathybench.scenarios.episode_versions import CONTENT_FROM, NEWEST_EPISODE_VERSION
from empathybench.scenarios.templates import TemplateError, template_dir

BANK_FILES = ("emotions.yaml", "people.yaml", "beliefs.yaml", "crisis.yaml", "roleplay.yaml")
LINK_FILES = ("links.yaml",)
"""A version that re-renders another's content (``CONTENT_FROM``) holds only these."""
EPISODE_DIR = "episodes"


def _yaml(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise TemplateError(f"{path}: cannot read template file: {error}") from error


def content_dir(version: str) -> Path:
    """Where a version's banks and episodes live: its own directory, or that of the version
    it re-renders."""
    return template_dir(CONTENT_FROM.get(version, version))


def episode_files(version: str) -> list[Path]:
    return sorted((content_dir(version) / EPISODE_DIR).glob("*.yaml"))


def _template_files(version: str) -> list[Path]:
    directory = content_dir(version)
    own = [template_dir(version) / name for name in LINK_FILES] if version in CONTENT_FROM else []
    return [directory / name for name in BANK_FILES] + episode_files(version) + own


def _merge(version: str, paths: Iterable[Path]) -> dict[str, object]:
    merged: dict[str, object] = {"version": version, "episodes": []}
    for path in paths:
        if not path.is_file():
            raise TemplateError(f"template {version}: missing file {path.name}")
        data = _yaml(path)
        if not isinstance(data, dict):
            raise TemplateError(f"{path}: expected a mapping at top level")
        for key, value in data.items():
            if key == "episodes":
                if not isinstance(value, list):
                    raise TemplateError(f"{path}: 'episodes' must be a list")
                episodes = merged["episodes"]
                assert isinstance(episodes, list)
                episodes.extend(value)
            elif key in merged:
                raise TemplateError(f"{path}: section {key!r} defined twice")
            else:
                merged[key] = value
    return merged


@cache
def load_episode_templates(version: str = NEWEST_EPISODE_VERSION) -> EpisodeTemplateSet:
    """Parse and type-check every file of an episode template version (cached)."""
    merged = _merge(version, _template_files(version))
    try:
        return EpisodeTemplateSet.model_validate(merged)
    except Exception as error:  # pydantic.ValidationError: a template problem
        raise TemplateError(f"template {version}: {error}") from error


@cache
def episode_templates_sha256(version: str = NEWEST_EPISODE_VERSION) -> str:
    """Hash over the exact bytes of a version's files, in a fixed order."""
    digest = hashlib.sha256()
    root = template_dir(version)
    for path in _template_files(version):
        name = path.relative_to(root if path.is_relative_to(root) else content_dir(version))
        digest.update(str(name).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _load_one_file(version: str, path: Path) -> EpisodeTemplateSet:
    directory = content_dir(version)
    merged = _merge(version, [directory / "emotions.yaml", directory / "people.yaml", path])
    for section in ("beliefs", "crisis_lines", "story_frames", "story_characters"):
        merged.setdefault(section, [])
    merged.setdefault("character_lines", [])
    try:
        return EpisodeTemplateSet.model_validate(merged)
    except Exception as error:
        raise TemplateError(f"{path}: {error}") from error


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", default=NEWEST_EPISODE_VERSION)
    parser.add_argument("--file", type=Path, help="check one episodes file on its own")
    parser.add_argument("--banks", action="store_true", help="check only the banks")
    args = parser.parse_args(argv)
    try:
        if args.file:
            templates = _load_one_file(args.version, args.file)
            problems = check_episode_templates(templates, banks=False)
        elif args.banks:
            directory = content_dir(args.version)
            merged = _merge(args.version, [directory / name for name in BANK_FILES])
            templates = EpisodeTemplateSet.model_validate(merged)
            problems = check_episode_templates(templates)
        else:
            templates = load_episode_templates(args.version)
            problems = check_episode_templates(templates)
    except TemplateError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a pydantic error in --banks mode
        print(f"error: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    episodes = templates.episodes
    help_roles = sum(role.help for e in episodes for role in e.roles.values())
    print(
        f"{len(episodes)} episodes, {len({e.family for e in episodes})} families, "
        f"{help_roles}/{3 * len(episodes)} roles need help, {len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
