"""Packages: the repository's top-level folders, installed under the ``coreflow_judge``
namespace (``adjudicator/`` -> ``coreflow_judge.adjudicator`` and so on).

Everything else about the distribution is in pyproject.toml; only the package mapping is
here, because it is computed from the folders (a new game folder needs no edit).
"""

from setuptools import find_packages, setup

NAMESPACE = "coreflow_judge"
FOLDERS = ["adjudicator", "events", "projections", "cli", "audit"]

packages = [f"{NAMESPACE}.{name}"
            for name in find_packages(include=[f"{f}*" for f in FOLDERS] + FOLDERS)]

setup(
    packages=packages,
    package_dir={f"{NAMESPACE}.{f}": f for f in FOLDERS},
)
