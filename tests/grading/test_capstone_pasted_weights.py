"""The capstone (08.5) route that pastes trained weights into the source: the output layer as
short hex literals (scores nothing: its Functions have no backward) or as one long literal
(refused by the source rules).
"""

from __future__ import annotations

from pathlib import Path

from support.capstone_networks import FINISH, RANDOM_FEATURES_1000, TRIVIAL_MODEL
from support.capstone_routes import REFERENCE, capstone_score, with_capstone_body
from support.grading_results import needs_sandbox

pytestmark = needs_sandbox


#: Route: the output layer pasted: 10 010 int8 weights (fitted offline in closed form) as
#: hex, in 11 string literals of 1 900 characters (each under the rules' MAX_LITERAL = 2 000),
#: joined at run time. The child never looks at the training images or labels.
PASTED = Path(__file__).with_name("capstone_pasted_weights.txt").read_text(encoding="utf-8")


PASTED_ROUTE = TRIVIAL_MODEL + RANDOM_FEATURES_1000 + PASTED + '''
quantised = np.array(bytearray(bytes.fromhex("".join(PASTED_CHUNKS))), dtype=np.uint8)
solved = quantised.astype(np.int8).astype(np.float64).reshape(10, 1001)  # (× PASTED_SCALE)
w2, b2 = solved[:, :-1], solved[:, -1]
''' + FINISH


def test_pasted_weights_in_short_literals_score_nothing(tmp_path: Path) -> None:
    """The output layer pasted as hex in short strings (it scored 5/5): refused, first for its
    size (65 000 weights in its hidden layer), and it has no convolution either."""
    score, feedback = capstone_score(tmp_path, "pasted", with_capstone_body(REFERENCE,
                                                                            PASTED_ROUTE))
    assert score == 0.0 and "at most 50000 parameters" in feedback, feedback


def test_pasted_weights_in_one_long_literal_are_refused_by_the_rules(tmp_path: Path) -> None:
    """The same weights as one 20 020-character literal: the rules' MAX_LITERAL refuses it."""
    body = PASTED_ROUTE.replace('"".join(PASTED_CHUNKS)', 'PASTED_HEX').replace(
        "PASTED_CHUNKS = [", "PASTED_HEX = '" + "".join(
            eval(PASTED[PASTED.index("["):]))  # noqa: S307 — our own literal
        + "'\nPASTED_CHUNKS = [", 1)
    score, feedback = capstone_score(tmp_path, "long", with_capstone_body(REFERENCE, body))
    assert score == 0.0 and "literal of" in feedback, feedback
