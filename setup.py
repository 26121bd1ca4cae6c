"""Package list: everything under pubfetch/, plus the top-level scraping_rules/ shipped as pubfetch.scraping_rules.

Rule authors find the rule files at the top of the repository, while installed code loads them as package data;
pyproject.toml alone cannot add a mapped directory to an automatically found package list.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["pubfetch", "pubfetch.*"]) + ["pubfetch.scraping_rules"],
    package_dir={"pubfetch.scraping_rules": "scraping_rules"},
)
