"""Load a stakes template version (v6 on), hash it, and check it from the shell.

The version's own directory holds ``common.yaml`` and ``stakes/*.yaml`` (each a list of
families); the banks (emotions, people, beliefs, crisis lines, role-play) are read unchanged
from ``BANKS_FROM``'s directory. Content writers run

    python -m empathybench.scenarios.stakes_templates [--version v6]

to check their work without the generator.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from functools import cache
from pathlib import Path

from empathybench.scenarios.episode_templates import BANK_FILES, _yaml
from empathybench.scenarios.episode_versions import BANKS_FROM, NEWEST_STAKES_VERSION
from empathybench.scenarios.stakes_checks import check_stakes_templates
from empathybench.scenarios.stakes_models import StakesTemplateSet
from empathybench.scenarios.templates import TemplateError, template_dir

COMMON_FILE = "common.yaml"
STAKES_DIR = "stakes"


def _files(version: str) -> tuple[list[Path], list[Path]]:
    """(bank files, the version's own files) in a fixed order."""
    banks = [template_dir(BANKS_FROM[version]) / name for name in BANK_FILES]
    own_dir = template_dir(version)
    own = [own_dir / COMMON_FILE, *sorted((own_dir / STAKES_DIR).glob("*.yaml"))]
    return banks, own


@cache
def load_stakes_templates(version: str = NEWEST_STAKES_VERSION) -> StakesTemplateSet:
    """Parse and type-check every file of a stakes template version (cached)."""
    if version not in BANKS_FROM:
        raise TemplateError(f"{version!r} is not a stakes template version")
    banks, own = _files(version)
    merged: dict[str, object] = {"version": version, "families": []}
    for path in banks + own:
        if not path.is_file():
            raise TemplateError(f"template {version}: missing file {path.name}")
        data = _yaml(path)
        if path.parent.name == STAKES_DIR:
            if not isinstance(data, list):
                raise TemplateError(f"{path}: expected a list of families")
            families = merged["families"]
            assert isinstance(families, list)
            families.extend(data)
            continue
        if not isinstance(data, dict):
            raise TemplateError(f"{path}: expected a mapping at top level")
        for key, value in data.items():
            if key in merged:
                raise TemplateError(f"{path}: section {key!r} defined twice")
            merged[key] = value
    try:
        return StakesTemplateSet.model_validate(merged)
    except Exception as error:  # pydantic.ValidationError: a template problem
        raise TemplateError(f"template {version}: {error}") from error


@cache
def stakes_templates_sha256(version: str = NEWEST_STAKES_VERSION) -> str:
    """Hash over the exact bytes of a version's files (its banks included), in order."""
    digest = hashlib.sha256()
    banks, own = _files(version)
    for path in banks + own:
        root = path.parent.parent if path.parent.name == STAKES_DIR else path.parent
        digest.update(f"{root.name}/{path.relative_to(root)}".encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", default=NEWEST_STAKES_VERSION)
    args = parser.parse_args(argv)
    try:
        templates = load_stakes_templates(args.version)
    except TemplateError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    problems = check_stakes_templates(templates)
    for problem in problems:
        print(problem)
    print(f"{len(templates.families)} families, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
