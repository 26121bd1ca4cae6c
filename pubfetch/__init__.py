"""pubfetch: fetch publication content from Europe PMC, PubMed, PMC, publisher pages and Unpaywall.

A Python reimplementation of the Java PubFetcher that walks batches of publications through the resources.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
