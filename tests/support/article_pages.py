"""A generic article page in the shapes publishers use (a title with the site's name, a navigation header, an article
with an abstract block, body sections, acknowledgements, references and a footer), for the tests of the generic article
reader, its title and its abstract."""

SENTENCE = ("Coastal wetlands store large amounts of carbon in their soils, and the rate at which they do so depends on "
            "the supply of sediment. We measured accretion at forty sites over six years. ")
ABSTRACT = ("Salt marshes keep pace with rising seas by trapping sediment and building organic soil. We measured surface "
            "elevation change at forty marsh sites along three estuaries between 2015 and 2021 and related it to "
            "suspended sediment, tidal range and vegetation. Marshes with high sediment supply gained elevation faster "
            "than local sea level rose, whereas sediment-starved marshes lost ground.")


def article_page(*, head: str = "", h1: str = "Sediment supply controls marsh resilience", abstract_block: str = "",
                 sections: int = 6, extra: str = "") -> str:
    body = "".join(f"<section><h2>Part {i}</h2><p>{SENTENCE * 3}</p><p>{SENTENCE * 2}</p></section>"
                   for i in range(sections))
    return f"""<html><head><title>Sediment supply controls marsh resilience | Journal of Coastal Things</title>{head}
    </head><body><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
    <main><article><h1>{h1}</h1>{abstract_block}<div class="body">{body}</div>
    <section><h2>Acknowledgements</h2><p>We thank the marsh owners for access to their land over many years.</p></section>
    <section><h2>References</h2><ol><li>Smith, J. (2010). Marshes. Coastal Journal 4, 1-10.</li>
    <li>Jones, K. (2012). More marshes. Coastal Journal 6, 11-20.</li></ol></section>{extra}</article></main>
    <footer>Copyright the publisher</footer></body></html>"""
