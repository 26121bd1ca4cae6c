"""Plugin definitions shipped with pubfetch (YAML package data, loaded by :func:`pubfetch.metadata.plugin.load_plugin`).

* ``highwire.yaml`` -- any site describing its articles with HighWire ``citation_*`` meta tags (HTML + PDF).
* ``ojs.yaml`` -- Open Journal Systems sites (landing pages, HTML and PDF galleys).
* ``jats_delivery.yaml`` -- publisher deliveries of JATS XML files with their PDFs.
"""
