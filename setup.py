"""Packages: the repository's top-level folders, installed under the ``coreflow_judge``
package (``adjudicator/`` -> ``coreflow_judge.adjudicator`` and so on); the folder
``api/`` is ``coreflow_judge`` itself, the public Python API (docs/api.md).

Everything else about the distribution is in pyproject.toml; only the package mapping is
here, because it is computed from the folders (a new game folder needs no edit).
"""

from setuptools import find_packages, setup

NAMESPACE = "coreflow_judge"
FOLDERS = ["adjudicator", "events", "projections", "cli", "audit", "serve"]
API = "api"
"""The folder installed as the package ``coreflow_judge`` itself (its ``__init__.py``)."""

packages = [NAMESPACE] + [f"{NAMESPACE}.{name}"
                          for name in find_packages(include=[f"{f}*" for f in FOLDERS] + FOLDERS)]

setup(
    packages=packages,
    package_dir={NAMESPACE: API} | {f"{NAMESPACE}.{f}": f for f in FOLDERS},
)
