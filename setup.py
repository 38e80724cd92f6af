"""Only what pyproject.toml cannot say: the wheel carries `sparkfold-autohook.pth` at the
top of site-packages, so that `SPARKFOLD=on` (or `lint`) arms sparkfold in every Python
process of the environment (see `sparkfold.optimizer.autohook`).  Its one line costs a
look at the environment variable when it is unset."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "sparkfold-autohook.pth"
SOURCE = Path(__file__).parent / "optimizer" / "_boot" / PTH


class BuildWithPth(build_py):
    def run(self):
        super().run()
        self.copy_file(str(SOURCE), str(Path(self.build_lib) / PTH), preserve_mode=False)

    def get_outputs(self, include_bytecode=True):
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]

    def get_output_mapping(self):
        return {**super().get_output_mapping(), str(Path(self.build_lib) / PTH): str(SOURCE)}


setup(cmdclass={"build_py": BuildWithPth})
