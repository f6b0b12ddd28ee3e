"""Map the repository's folders into the one installed namespace, `critic_loop`.

The design card keeps `graphs/`, `nodes/` and `state/` at the top of the repository;
installed, they are `critic_loop.graphs`, `critic_loop.nodes` and `critic_loop.state`,
beside the Python API and command line in `critic_loop/`. Every sub-package under those
folders is found here, so a new folder can never be left out of the wheel. Everything
else about the package is declared in pyproject.toml.
"""

from setuptools import find_packages, setup

FOLDERS = {
    "critic_loop": "critic_loop",
    "critic_loop.graphs": "graphs",
    "critic_loop.nodes": "nodes",
    "critic_loop.state": "state",
}
"""Each installed package and the repository folder it comes from."""


def packages() -> list[str]:
    """List every package under each folder, named inside the `critic_loop` namespace."""
    found = []
    for name, folder in FOLDERS.items():
        found += [name, *(f"{name}.{package}" for package in find_packages(folder))]
    return found


if __name__ == "__main__":  # setuptools' build backend runs this file as __main__
    setup(packages=packages(), package_dir=FOLDERS)
