"""A MathML formula reads once: its rendered copy kept and its MathML left out where the page shows both, its token
text (or its alttext) where the MathML is all there is; MathML source and annotations never reach text."""

from __future__ import annotations

import pytest

from pubfetch.extract.clean import parse_html
from pubfetch.extract.html_text import element_text, format_text

#: ScienceDirect's 2014 markup: the rendered formula, then its MathML in a hidden container.
SD_2014 = ('<span class="mathmlsrc"><span class="formulatext stixSupport mathImg" title="Click to view the MathML '
           'source">0.1≲z&lt;1.2</span><span class="mathContainer hidden"><span class="mathCode"><math altimg="si63.gif">'
           '<mn>0.1</mn><mo>≲</mo><mi>z</mi><mo>&lt;</mo><mn>1.2</mn></math></span></span></span>')
#: MathJax 2's CommonHTML output: rendered spans, then an assistive MathML copy.
MATHJAX_2 = ('<span class="MathJax_CHTML"><span class="mjx-chtml"><span class="mjx-mi">H</span><span class="mjx-sub">'
             '<span class="mjx-mn">0</span></span></span><span class="MJX_Assistive_MathML"><mml:math><mml:msub>'
             '<mml:mi>H</mml:mi><mml:mn>0</mml:mn></mml:msub></mml:math></span></span>')
#: MathJax 3: glyphs drawn by CSS, so the assistive MathML is the formula's only text.
MATHJAX_3 = ('<mjx-container class="MathJax"><mjx-math><mjx-mi><mjx-c class="mjx-c1D43B"></mjx-c></mjx-mi></mjx-math>'
             '<mjx-assistive-mml><math><msub><mi>H</mi><mn>0</mn></msub></math></mjx-assistive-mml></mjx-container>')
#: A formula with a TeX annotation beside its presentation MathML.
ANNOTATED = ('<math alttext="H_0"><semantics><msub><mi>H</mi>\n  <mn>0</mn></msub>'
             '<annotation encoding="application/x-tex">H_0</annotation></semantics></math>')


def _both(markup: str) -> tuple[str, str]:
    element = parse_html(f'<p id="x">the constant {markup} is measured.</p>').find(id="x")
    return format_text(element), element_text(element)


@pytest.mark.parametrize(("markup", "formula"), [
    (SD_2014, "0.1≲z<1.2"),
    (MATHJAX_2, "H0"),
    (MATHJAX_3, "H0"),
    (ANNOTATED, "H0"),
    ('<math alttext="\\alpha"></math>', "\\alpha"),  # nothing but the alttext
    ("<mml:math><mml:mi>n</mml:mi></mml:math>", "n"),
])  # fmt: skip
def test_a_formula_appears_once(markup: str, formula: str) -> None:
    for text in _both(markup):
        assert text == f"the constant {formula} is measured."


def test_prose_ending_like_the_formula_is_not_its_rendered_copy() -> None:
    element = parse_html('<p id="x">a set of size in <math><mi>n</mi></math> steps.</p>').find(id="x")
    assert element_text(element) == "a set of size in n steps."


def test_mathml_source_printed_as_text_is_not_text() -> None:
    element = parse_html('<div id="x"><p>Shown.</p><span>&lt;mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML">'
                         "&lt;mml:mi&gt;x&lt;/mml:mi&gt;&lt;/mml:math&gt;</span></div>").find(id="x")
    assert format_text(element) == "Shown."


def test_a_block_formula_is_a_line_of_its_own() -> None:
    element = parse_html('<div id="x">where<math display="block"><mi>E</mi><mo>=</mo><mi>m</mi></math>holds</div>')
    assert format_text(element.find(id="x")) == "where\nE=m\nholds"
