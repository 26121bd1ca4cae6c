"""Built-in scraping rules (journals.yaml, webpages.yaml), installed as the package ``pubfetch.scraping_rules``."""
