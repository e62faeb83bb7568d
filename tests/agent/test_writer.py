"""The writer (DESIGN §3): properties of its emails, not their wording.

Every email is made of complete sentences, carries no notes written for the
graph's author, adds no sentence the graph does not support, varies its
phrasing across prospects, greets by first name (or title and surname), asks
once and is signed by the sender.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from codreamer.agent.style import ALL_STYLES, STYLE_CHOICES, EmailStyle
from codreamer.agent.writer import write_email
from codreamer.agent.writer.check import broken_sentences, problems, repair
from codreamer.agent.writer.realise import Vocabulary, goal_object, goal_variants, graph_facts
from codreamer.agent.writer.subject import _offered_np
from codreamer.agent.writer.text import _cut as cut
from codreamer.agent.writer.text import (
    customer_fact,
    for_customer,
    is_lecture,
    is_meta,
    reason_clause,
)
from codreamer.agent.writer.voice import to_reader
from codreamer.graph.schema import is_product_feature
from codreamer.graph.search import shortest_path
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_graph, load_scenarios
from codreamer.models import Prospect, Scenario, Sender

PLACEHOLDER = re.compile(r"\[[^\]]*\]|\{\{|\}\}|\{%|<[A-Z_]+>|TODO|None\b|undefined")
META = re.compile(
    r"\bnodes?\b|current_node|this concept|need/challenge|understanding [^.]* (?:is|are) "
    r"(?:crucial|essential)|\bthe product\b|\bpitch\b",
    re.IGNORECASE,
)
SENDER = Sender(name="Sam Carter", company="Frostline", title="Account Executive")


@pytest.fixture(scope="module")
def store(repo_root: Path) -> GraphStore:
    return load_graph(repo_root / "data" / "graph.json")


@pytest.fixture(scope="module")
def synth(shared_kg: Path) -> GraphStore:
    return load_graph(shared_kg / "synthetic-data-16.json")


@pytest.fixture(scope="module")
def scenarios(repo_root: Path) -> list[Scenario]:
    return load_scenarios(repo_root / "data" / "scenarios.json")


def _middle(body: str) -> list[str]:
    """Paragraphs between the greeting and the sign-off."""
    return body.split("\n\n")[1:-1]


def _proper(store: GraphStore, sc: Scenario) -> Vocabulary:
    vocab, _ = graph_facts(store)
    v = Vocabulary([], [sc.prospect.name, sc.prospect.company or "", SENDER.name, "Frostline"])
    v.lower, v.caps = vocab.lower, vocab.caps
    return v


def test_a_compound_of_common_words_is_no_name() -> None:
    # notes that open "Front-desk turnover ..." are told as "I hear front-desk turnover
    # ...": each part is a common word; a compound with a name in it stays a name
    v = Vocabulary(["the front desk answers", "a desk"], ["Ana Ruiz"])
    assert v.lowered("Front-desk turnover was 45%") == "front-desk turnover was 45%"
    assert v.lowered("Kestrel-style desks ship") == ""
    assert v.lowered("Kestrel runs three clinics") == ""
    # a word that only ever starts a sentence in the graph is no name ("I hear Each
    # property's manager ..." came from reading "volume. Each" as mid-sentence)
    v = Vocabulary(["Rates rise in summer. Each property sets its rates."], [])
    assert v.lowered("Each property's manager sets rates") == "each property's manager sets rates"


def test_style_space() -> None:
    n = 1
    for _, k in STYLE_CHOICES:
        n *= k
    assert len(ALL_STYLES) == len(set(ALL_STYLES)) == n
    with pytest.raises(ValueError):
        EmailStyle(angle=3)
    with pytest.raises(ValueError):
        EmailStyle(ask=-1)


@pytest.mark.parametrize("graph", ["sample", "synth"])
def test_every_path_and_style_is_complete_sentences_without_meta_text(
    graph: str, store: GraphStore, synth: GraphStore, scenarios: list[Scenario]
) -> None:
    g = store if graph == "sample" else synth
    for k, path in enumerate(g.paths_to_features(max_hops=4)):
        sc = scenarios[k % len(scenarios)]
        vocab = _proper(g, sc)
        for style in ALL_STYLES[k % 3 :: 5]:
            e = write_email(g, path, sc, style, SENDER)
            assert e.citations == path
            assert not PLACEHOLDER.search(e.body + e.subject), e.body
            assert not META.search(e.body), e.body
            assert "\n\n\n" not in e.body
            assert broken_sentences(e.body, vocab.proper) == [], e.body
            assert 1 <= len(e.subject.split()) <= 12, e.subject
            assert e.body.rstrip().endswith("Account Executive, Frostline")  # signed
            assert e.body.count("?") == 1  # one ask
            assert "waffles" not in e.body.lower().replace("waffles and bagels", "")


def test_no_sentence_without_a_fact_or_a_convention(
    store: GraphStore, scenarios: list[Scenario]
) -> None:
    """Every sentence of the argument carries words of a cited node (or is the ask):
    nothing the graph does not support."""
    path = ["Customer Job", "Temperature Excursions", "Reefer Unit Failures", "Late Alerts",
            "Product Feature"]  # fmt: skip
    stems = set()
    for n in path:
        text = store.content(n) + " " + " ".join(nb.rationale for nb in store.out_neighbours(n))
        stems |= {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())}
    for sc in scenarios:
        for style in ALL_STYLES[::7]:
            body = write_email(store, path, sc, style, SENDER).body
            for para in _middle(body)[:-1]:  # the last paragraph is the ask
                for s in re.split(r"(?<=[.!?])\s+", para):
                    words = {w[:5] for w in re.findall(r"[a-z]{4,}", s.lower())}
                    assert len(words & stems) >= 2, s


def test_phrasing_varies_across_prospects(store: GraphStore, scenarios: list[Scenario]) -> None:
    """No four-word phrase of the writer's own (outside greeting and sign-off) is in
    most emails to different prospects on the same walk."""
    path = shortest_path(store)
    bodies = []
    for sc in scenarios:
        for style in ALL_STYLES[::9]:
            body = " ".join(_middle(write_email(store, path, sc, style, SENDER).body))
            bodies.append(re.findall(r"[a-z0-9'-]+", body.lower()))
    graph_words = " ".join(
        store.content(n) + " " + " ".join(nb.rationale for nb in store.out_neighbours(n))
        for n in store.nodes
    )
    # The writer's own phrases: two or more words the graph never uses (the graph's
    # facts, paraphrased, recur in every email on this walk by design).
    vocab = set(re.findall(r"[a-z0-9'-]+", graph_words.lower()))
    counts: Counter[tuple[str, ...]] = Counter()
    for words in bodies:
        counts.update({g for g in _grams(words) if sum(w not in vocab for w in g) >= 2})
    goal_words = set()
    for sc in scenarios:
        goal_words |= set(_grams(re.findall(r"[a-z0-9'-]+", sc.goal.lower())))
    own = [(g, c) for g, c in counts.most_common() if g not in goal_words]
    assert own and own[0][1] / len(bodies) <= 0.35, own[:5]


def _grams(words: list[str]) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + 4]) for i in range(len(words) - 3)]


def test_greeting_by_first_name_or_title_and_surname(store: GraphStore) -> None:
    path = shortest_path(store)
    goal = "Secure a 20-minute discovery call"
    peer, formal = EmailStyle(register=0), EmailStyle(register=1)
    daniel = Scenario(prospect=Prospect(name="Daniel Brooks"), goal=goal)
    osei = Scenario(prospect=Prospect(name="Dr. Amara Osei"), goal=goal)
    assert "Daniel Brooks" not in write_email(store, path, daniel, formal).body.split("\n")[0]
    assert write_email(store, path, daniel, formal).body.startswith("Dear Daniel,")
    assert "Daniel," in write_email(store, path, daniel, peer).body.split("\n")[0]
    assert write_email(store, path, osei, formal).body.startswith("Dear Dr. Osei,")
    assert "Amara," in write_email(store, path, osei, peer).body.split("\n")[0]
    neutral = Scenario(prospect=Prospect(name="there"), goal=goal)
    for style in ALL_STYLES[:8]:
        e = write_email(store, path, neutral, style)
        assert e.body.split("\n")[0] in ("Hello,", "Hi,", "Good day,")
        assert "there" not in e.subject.lower()


def test_subject_names_the_readers_problem_cleanly(
    store: GraphStore, scenarios: list[Scenario]
) -> None:
    """The subject is the title of a cited fact (a clean noun phrase, never words cut
    out of the notes), and with notes, the fact that bears on them."""
    by_id = {s.id: s for s in scenarios}
    fleet = by_id["coldpath-fleet"]  # notes: compressors failing on the road
    path = ["Customer Job", "Temperature Excursions", "Reefer Unit Failures", "Late Alerts",
            "Product Feature"]  # fmt: skip
    subject = write_email(store, path, fleet, EmailStyle(), SENDER).subject.lower()
    assert "reefer unit failures" in subject, subject
    for sc in scenarios:
        for style in ALL_STYLES[::5]:
            subj = write_email(store, path, sc, style, SENDER).subject.lower()
            assert any(n.lower() in subj for n in path[1:4]), subj


def test_no_industry_words_in_the_templates(repo_root: Path) -> None:
    templates = repo_root / "codreamer" / "agent" / "writer" / "templates"
    text = " ".join(p.read_text().lower() for p in templates.glob("*.j2"))
    assert text
    for word in ("dairy", "seafood", "spoil", "hours back", "reefer", "pallet", "truck"):
        assert word not in text, word


def test_author_notes_are_recognised() -> None:
    assert is_meta("This node explores the application areas of synthetic data.")
    assert is_meta("Since Acme uses GANs, understanding the challenges of GAN training is crucial.")
    assert is_meta("This concept connects evaluation to the product.")
    assert is_meta("The point to make in emails is that speed protects margins.")
    assert not is_meta("Loads that stay out of range too long must be thrown away.")
    assert reason_clause("This need/challenge is addressed by the product's capabilities") == ""
    assert customer_fact("This node explores things. Audits require a record.").text == (
        "Audits require a record"
    )


def test_a_shortened_fact_keeps_its_contrast_and_its_cause() -> None:
    contrast = (
        "Bars that guess their keg levels order too much of some beers, while popular ones "
        "run short on busy weekends and regulars leave early."
    )
    assert "while popular ones run short" in customer_fact(contrast, 12).text
    cause = "Small losses add up quickly for distributors because margins are two percent."
    assert "because margins are two percent" in customer_fact(cause, 8).text
    # tangents go
    fact = customer_fact("Methods to grow data, just like how waffles are topped.")
    assert fact.text == "Methods to grow data"


def test_third_person_facts_become_the_readers_situation() -> None:
    classes = ("distributors", "companies")
    assert to_reader("Distributors must prove the cold chain held", classes) == (
        "you must prove the cold chain held"
    )
    assert to_reader("Audits require distributors to show a record", classes) == (
        "Audits require you to show a record"
    )
    assert to_reader("During a recall, a distributor has to name every shipment", classes) == (
        "During a recall, your team has to name every shipment"
    )
    assert to_reader("Grocers move orders to a second supplier", classes) == (
        "Grocers move orders to a second supplier"
    )


def test_the_check_finds_and_repairs_broken_sentences() -> None:
    assert problems("That matters because Much of the wait is upstream.")
    assert repair("That matters because Much of the wait is upstream.") == (
        "That matters because much of the wait is upstream."
    )
    assert problems("Which leads to a second problem: Knowing how full every keg is.")
    assert problems("I am writing with a suggestion for your team: Standard metrics.")
    assert problems("Our costs rise because.")
    assert problems("Standard and advanced metrics used to assess AI models.")  # no verb
    assert not problems("Live alerts move the moment of discovery from the dock to the road.")
    assert not problems("We offer Frostline to teams.", lambda w: w == "Frostline")


def test_helpers_and_determinism(store: GraphStore, scenarios: list[Scenario]) -> None:
    assert goal_object("Secure a 20-minute discovery call") == "a 20-minute discovery call"
    assert goal_object("Set up a pilot on five trucks.") == "a pilot on five trucks"
    assert goal_object("Share results") == ""
    sc = Scenario(prospect=Prospect(name="Kim"), goal="Share our benchmark results")
    e = write_email(store, shortest_path(store), sc)
    assert "share our benchmark results?" in e.body
    path = store.paths_to_features()[-1]
    assert write_email(store, path, scenarios[0]) == write_email(store, path, scenarios[0])


def test_path_without_product_feature(store: GraphStore, scenarios: list[Scenario]) -> None:
    e = write_email(
        store, ["Customer Job", "Margin Pressure", "Seasonal Demand Peaks"], scenarios[0]
    )
    assert e.body.count("?") == 1
    assert "Seasonal Demand Peaks" in e.citations  # a dead end's fact is still cited
    # a walk that stops short still says what the seller does, from a feature it reaches
    short = write_email(store, ["Customer Job", "Margin Pressure"], scenarios[0])
    assert store.hops_to_feature("Margin Pressure")
    assert is_product_feature(short.citations[-1])
    assert short.citations[:2] == ["Customer Job", "Margin Pressure"]
    only_cj = write_email(store, ["Customer Job"], scenarios[0])
    assert is_product_feature(only_cj.citations[-1])
    # the Customer Job is the seller's view of the reader: never told back to them
    assert "chilled and frozen goods" not in only_cj.body


def test_a_title_before_the_name_is_not_greeted_as_the_first_name() -> None:
    assert Prospect(name="Dr. Amara Osei").first_name == "Amara"
    assert Prospect(name="Ms Priya Natarajan").first_name == "Priya"
    assert Prospect(name="Dr. Osei").first_name == "Dr. Osei"
    assert Prospect(name="Drew Barry").first_name == "Drew"


_SLOT_GRAPH = [
    {"id": "Customer Job", "content": "Generates synthetic data for model training",
     "edge": [{"target_id": "Review Rubric Drift", "relationship": "has process",
               "rationale": "Reviewers need one rubric."}]},
    {"id": "Review Rubric Drift",
     "content": "Defines and manages annotation guidelines and rubrics for reviewers",
     "edge": [{"target_id": "Product Feature", "relationship": "is solved by",
               "rationale": "A direct use case for a dedicated product feature."}]},
    {"id": "Product Feature",
     "content": "Efficiently evaluating LLM applications requires robust tooling. Weave "
                "provides an integrated feedback system, so reviewers score outputs in the UI.",
     "edge": []},
]  # fmt: skip


def test_a_subject_never_names_a_schema_slot() -> None:
    """A node id like "Product Feature" is a slot of the graph's schema: a subject made
    of it reads as an unfilled template. The subject names the reader's problem."""
    g = GraphStore.from_json(_SLOT_GRAPH)
    sc = Scenario(
        id="s", prospect=Prospect(name="Maya Lin", company="Lumen Synthetic"), goal="Book a demo"
    )
    path = ["Customer Job", "Review Rubric Drift", "Product Feature"]
    for style in ALL_STYLES:
        subj = write_email(g, path, sc, style, SENDER).subject.lower()
        assert "product feature" not in subj and "feature" not in subj.split(), subj
        assert "review rubric drift" in subj, subj


def test_word_swaps_are_safe_in_every_context() -> None:
    """A swap that is wrong once ("difficult hat") is worse than none."""
    from codreamer.agent.writer.voice import plain

    assert plain("Crews wear a hard hat on site.") == "Crews wear a hard hat on site."
    assert "hard impact" in plain("The hard impact of a fall is difficult to see.")
    assert plain("SolarAPP+ issues instant permits.") == "SolarAPP+ issues instant permits."
    assert "must" not in plain("A crew doesn't have to take a break.")
    assert plain("It is a problem for an error budget.") == "It is a problem for an error budget."
    assert plain("Read the Frequently Asked Questions.") == "Read the Frequently Asked Questions."


def test_a_product_is_said_by_what_it_does_and_notes_are_never_bare() -> None:
    """The product's sentence says what it does, not a platitude about the field; the
    prospect's notes open as what the seller heard, never as a fragment or a bare
    recital; "we"/"our" never claims the customer's things."""
    from codreamer.agent.writer.notes import notes_told

    g = GraphStore.from_json(_SLOT_GRAPH)
    sc = Scenario(
        id="s",
        prospect=Prospect(
            name="Maya Lin",
            company="Lumen Synthetic",
            notes="Worried about rubric drift across reviewers. Collects reviewer feedback in "
            "spreadsheets with no consistent rubric. Wants to show our data is clean.",
        ),
        goal="Book a demo",
    )
    path = ["Customer Job", "Review Rubric Drift", "Product Feature"]
    for style in ALL_STYLES:
        body = write_email(g, path, sc, style, SENDER).body
        assert "Weave provides" in body, body
        assert "Efficiently evaluating" not in body
        assert "Worried about" not in body and "our data" not in body
        opening = _middle(body)[0]
        assert not opening.startswith(("Collects", "You collect")), opening
    # a bare state is the reader's, told as such; never the fragment itself
    assert notes_told("Worried about bias amplification in the data.") == (
        "You are worried about bias amplification in the data",
    )
    assert notes_told("Worried about bias and the compute cost of validating data.") == (
        "You are worried about bias and the compute cost of validating data",
    )
    assert notes_told("Wants proof that our data is diverse.") == ()
    # a predicate's subject is the reader: "their data" is the reader's
    assert notes_told("Wants the F1 score reported for every model trained on their data.") == (
        "You want the F1 score reported for every model trained on your data",
    )


def test_notes_that_open_on_a_word_of_unknown_case_own_the_hearsay_at_the_end() -> None:
    """'As I understand it, Group-wide no-show ...' leaves a capital mid-sentence, and
    lower-casing a word the graph never wrote could unname a name: the hearsay comes
    last. A name by its shape (an acronym) keeps the lead-in."""
    g = GraphStore.from_json(_SLOT_GRAPH)
    path = ["Customer Job", "Review Rubric Drift", "Product Feature"]
    for notes, start in (
        ("Group-wide rubric drift is about 9% a quarter across reviewers.", "Group-wide"),
        ("QA reviewers drift from the rubric every quarter.", None),
    ):
        sc = Scenario(prospect=Prospect(name="Maya Lin", notes=notes), goal="Book a demo")
        openings = {_middle(write_email(g, path, sc, st, SENDER).body)[0] for st in ALL_STYLES}
        for o in openings:
            if start:
                assert o.startswith(start) and o.endswith(("right.", "gather.", "it.", "told.")), o
            else:
                assert " QA reviewers drift" in o, o


def test_author_notes_of_the_tuning_panel_are_recognised() -> None:
    for note in (
        "Worth making clear that the tags are cheap.",
        "It is worth stressing that drift is caught early.",
        "This is where the main product fits.",
        "Random forests are the alternative we want to contrast with gradient boosting.",
        "Slow dashboards go hand in hand with timeouts during month-end close.",
    ):
        assert is_meta(note), note
    assert not is_meta("Every point of loss ratio on a $500 million book is worth $5 million.")


def test_a_cut_never_drops_the_last_item_of_a_list() -> None:
    # "... from Amazon, Walmart." reads as a list cut short: the "and" that closes a
    # list is not a place to cut, wherever the sentence would end.
    fact = (
        "Our crawler collects prices for a set of up to 12 stores twice a day from Amazon, "
        "Walmart and the stores' own websites, and shows them next to your own prices."
    )
    for limit in range(8, 30):
        short = cut(fact, limit)
        assert not short.rstrip(".").endswith("Walmart"), (limit, short)
        assert "Walmart and the stores' own websites" in short or "Walmart" not in short


def test_a_fact_wrapped_in_a_note_for_the_author_reaches_the_email_without_it(
    scenarios: list[Scenario],
) -> None:
    from codreamer.agent.writer import write_email
    from codreamer.graph.schema import Edge, Node

    note = (
        "Worth making clear that Railkeep works alongside the existing TMS rather than "
        "replacing it, so a carrier can go live in about 4 weeks."
    )
    assert for_customer(note) is not None
    assert not for_customer(note).lower().startswith("worth")  # type: ignore[union-attr]
    assert for_customer("Understanding the graph is crucial because it links nodes.") is None
    # The lead-in goes whole, an adverb with it ("Here that weekly rate updates ...").
    assert (
        for_customer("It is worth noting here that weekly rate updates leave prices out of date.")
        == "Weekly rate updates leave prices out of date."
    )
    g = GraphStore(
        [
            Node(id="Customer Job", content="Regional carriers plan routes for 40 trucks a day.",
                 edges=[Edge(target="Empty Miles", rationale="Planning drives empty miles.")]),
            Node(id="Empty Miles", content="About a fifth of miles driven are empty backhauls.",
                 edges=[Edge(target="Product Feature: TMS Add-on", rationale="Fewer empty runs.")]),
            Node(id="Product Feature: TMS Add-on", content=note),
        ]
    )  # fmt: skip
    path = ["Customer Job", "Empty Miles", "Product Feature: TMS Add-on"]
    for style in ALL_STYLES[:12]:
        body = write_email(g, path, scenarios[0], style).body
        assert "worth making clear" not in body.lower(), body


def test_no_point_is_made_twice(store: GraphStore, scenarios: list[Scenario]) -> None:
    """The notes and a node often state the same need; the email tells it once
    (readers mark a point made twice as a template filling two slots)."""
    stem_word = re.compile(r"[a-z][a-z'-]{3,}")

    def stems(s: str) -> set[str]:
        return {w[:5] for w in stem_word.findall(s.lower())}

    checked = 0
    for sc in scenarios:
        if not sc.prospect.notes:
            continue
        for path in store.paths_to_features(max_hops=4):
            for style in ALL_STYLES[::7]:
                e = write_email(store, path, sc, style, SENDER)
                prose = " ".join(_middle(e.body)[:-1])  # the ask is the last paragraph
                told = [stems(s) for s in re.split(r"(?<=[.!?])\s+", prose)]
                told = [t for t in told if len(t) >= 4]
                for i, a in enumerate(told):
                    for b in told[i + 1 :]:
                        assert len(a & b) < 0.6 * min(len(a), len(b)), e.body
                checked += 1
    assert checked > 50


def test_a_products_first_sentence_with_a_re_verb_is_what_the_email_says() -> None:
    """ "Brieflane rebuilds Slack, Teams and text messages into conversation views"
    was read as a noun phrase (no known verb), so the email told the feature's second
    sentence, about email threads, to a reader whose problem was Slack."""
    first = (
        "Brieflane rebuilds Slack, Teams and text messages into 24-hour conversation "
        "views per channel, so reviewers code a day's discussion as one unit."
    )
    second = "For email, thread suppression removes duplicative earlier messages."
    fact = customer_fact(f"{first} {second}", 24, True)
    assert fact.kind == "clause" and fact.text.startswith("Brieflane rebuilds"), fact
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Litigation teams at payments companies.",
             "edges": [{"target": "Chat Data", "label": "faces"}]},
            {"id": "Chat Data", "content": "Slack and Teams messages now appear in most "
             "investigations.",
             "edges": [{"target": "Product Feature: Threads", "label": "needs"}]},
            {"id": "Product Feature: Threads", "content": f"{first} {second}"},
        ]
    )  # fmt: skip
    sc = Scenario(
        prospect=Prospect(name="Samuel Adeyemi", title="Deputy General Counsel"),
        goal="Book a 30-minute demo",
    )
    path = ["Customer Job", "Chat Data", "Product Feature: Threads"]
    for style in ALL_STYLES[:12]:
        body = write_email(store, path, sc, style, SENDER).body
        assert "rebuilds Slack, Teams and text messages" in body, body


@pytest.mark.parametrize(
    ("content", "company", "said"),
    [
        ("Fieldbook, featuring offline checklists for site crews.", "Fieldbook",
         "Fieldbook has offline checklists for site crews."),
        ("Fieldbook, a checklist app that works offline on site.", "Fieldbook",
         "Fieldbook is a checklist app that works offline on site."),
        # a name the signature does not carry: the seller speaks for the product
        ("Fieldbook, featuring offline checklists for site crews.", "Frostline",
         "We offer offline checklists for site crews."),
        ("Fieldbook, a checklist app that works offline on site.", "Frostline",
         "We offer a checklist app that works offline on site."),
    ],
)  # fmt: skip
def test_a_product_named_in_a_noun_phrase_is_still_said(
    content: str, company: str, said: str
) -> None:
    """A product node written as a name and a noun phrase ("Waffles and Bagels,
    featuring a UI for feedback") has no verb, so the final check rejected it as a
    fragment and the email never said what the product was. It is told as the same
    claim in a clause; nothing is added."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "General contractors building hospitals.",
             "edges": [{"target": "Paper Checklists", "label": "uses"}]},
            {"id": "Paper Checklists", "content": "Site crews fill in paper checklists that "
             "reach the office days later.",
             "edges": [{"target": "Product Feature", "label": "needs"}]},
            {"id": "Product Feature", "content": content},
        ]
    )  # fmt: skip
    sc = Scenario(prospect=Prospect(name="Ana Ruiz", title="Safety Manager"), goal="Book a demo")
    path = ["Customer Job", "Paper Checklists", "Product Feature"]
    sender = SENDER.model_copy(update={"company": company})
    for style in ALL_STYLES[:12]:
        body = write_email(store, path, sc, style, sender).body
        assert said in body, body


def test_a_walk_of_the_readers_own_work_still_says_why_the_product_follows() -> None:
    """Each fact of this walk is the reader's own work ("Validates data quality by
    ..."), which is never told back to them, so the email went from the notes straight
    to the product. An edge's reason for the customer fills the middle; a reason
    about the graph or the product's positioning never does."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Generates synthetic data for LLM pre-training.",
             "edges": [{"target": "Validation", "label": "has process",
                        "rationale": "Weave's tools are directly applicable to this process."}]},
            {"id": "Validation", "content": "Validates data quality by evaluating models "
             "trained on it.",
             "edges": [{"target": "Human Review", "label": "relies on",
                        "rationale": "For nuanced LLM tasks, automated metrics are often "
                        "insufficient. This highlights a need for Weave's UI."}]},
            {"id": "Human Review", "content": "Requires human review of model outputs.",
             "edges": [{"target": "Product Feature", "label": "is solved by",
                        "rationale": "A direct use case for a dedicated product feature."}]},
            {"id": "Product Feature", "content": "Weave provides a feedback system in the UI "
             "and the SDK."},
        ]
    )  # fmt: skip
    sc = Scenario(
        prospect=Prospect(name="Ana Silva", title="CTO", notes="Wants the data to stay high "
                          "quality."),
        goal="Book a call",
    )  # fmt: skip
    path = ["Customer Job", "Validation", "Human Review", "Product Feature"]
    for style in ALL_STYLES[:24]:
        body = write_email(store, path, sc, style, SENDER).body
        assert "automated metrics are" in body and "insufficient." in body, body
        assert "Weave's UI" not in body and "use case" not in body, body
        assert broken_sentences(body, _proper(store, sc).proper) == [], body


@pytest.mark.parametrize(
    "note",
    [
        "It is important to connect the utility to its pipes, since the network is its "
        "largest asset.",
        "Highlighting the field workforce is useful because leak detection depends on people.",
        "Useful context: the helpdesk is where all the conversations live.",
        "Framing note: analysts spend their time on judgement calls.",
        "Each replacement hire starts the ramp again, which is the cost to emphasise.",
        "This is the direct answer to the calibration problem QA leads describe.",
        "Included since staffing is the pain every operator raises unprompted.",
        "Mention that optimised routes are fed back into the existing tasks.",
    ],
)
def test_advice_to_whoever_writes_the_email_is_never_a_reason(note: str) -> None:
    """Edge rationales written as advice to the email's author (the graph's notes on
    what to stress) are not reasons a customer reads; once a walk with no tellable
    fact told its edges' reasons, "Included since staffing is the pain ..." reached an
    email."""
    assert reason_clause(note) == ""


def test_a_reason_for_the_customer_is_kept() -> None:
    r = "Survey coverage depends on how many trained listeners the utility has."
    assert reason_clause(r) == r.rstrip(".")


def test_a_product_sentence_with_a_common_verb_is_what_the_email_says() -> None:
    """ "Pickwise voice picking directs workers through a headset ..." had no verb the
    writer knew, so it was read as a noun phrase, the final check rejected it, and the
    email never said what the product does."""
    fact = customer_fact(
        "Pickwise voice picking directs workers through a headset in more than 20 "
        "languages, with check-digit confirmation at each location.", 30, True
    )  # fmt: skip
    assert fact.kind == "clause" and fact.text.startswith("Pickwise voice picking directs")


def test_a_fact_is_not_cut_before_what_it_costs() -> None:
    """ ", which takes a front-desk employee two hours a day" is the fact's point."""
    fact = customer_fact(
        "Many clinics still confirm appointments by phone the day before, which takes a "
        "front-desk employee one to two hours a day and reaches many clients only by "
        "voicemail.", 24
    )  # fmt: skip
    assert "two hours a day" in fact.text, fact


def test_a_fact_is_not_cut_before_its_only_result_in_figures() -> None:
    """ "raising accuracy to 99.9%" was cut from the product's sentence for a reader
    whose clients charge back for accuracy under 99.5%."""
    fact = customer_fact(
        "Pickwise voice picking directs workers through a headset in more than 20 "
        "languages, with check-digit confirmation at each location, keeping eyes and hands "
        "free and raising accuracy to 99.9% in typical deployments.", 30, True
    )  # fmt: skip
    assert "99.9%" in fact.text, fact


def test_a_bare_most_is_told_with_the_customers_it_means() -> None:
    """ "Most still update rates by hand" followed a note for the graph's author, the
    only sentence that said who "most" are; readers asked "most what?"."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Independent hotels sell rooms on many channels.",
             "edges": [{"target": "Manual Rates", "label": "faces"}]},
            {"id": "Manual Rates", "content": "Understanding how independents set rates is "
             "crucial because it shows where we fit. Most still update rates by hand in a "
             "spreadsheet.", "edges": [{"target": "Product Feature", "label": "solved by"}]},
            {"id": "Product Feature", "content": "Tidemark pushes approved rates to every "
             "channel at once."},
        ]
    )  # fmt: skip
    sc = Scenario(prospect=Prospect(name="Ana Ruiz", title="Owner"), goal="Book a call")
    for style in ALL_STYLES[:12]:
        body = write_email(store, ["Customer Job", "Manual Rates", "Product Feature"], sc,
                           style, SENDER).body  # fmt: skip
        assert "Most still" not in body, body
        assert "Most hotels still update rates" in body, body


def test_a_brief_email_tells_the_fact_on_the_notes_own_words() -> None:
    """One fact fits a brief email. Both facts share one word with the notes, but
    "data" is in most of this graph's nodes and "image" only in one: the notes are
    about images, so that fact is told."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Labs sell data sets to model builders.",
             "edges": [{"target": "Review", "label": "faces"}]},
            {"id": "Review", "content": "Data teams review data quality by hand every week.",
             "edges": [{"target": "Labels", "label": "leads to"}]},
            {"id": "Labels", "content": "Image labelling takes three weeks for each release.",
             "edges": [{"target": "Product Feature", "label": "solved by"}]},
            {"id": "Product Feature", "content": "Lensfold checks data quality on every "
             "release."},
        ]
    )  # fmt: skip
    sc = Scenario(
        prospect=Prospect(name="Ben Roy", title="Head of Vision", notes="Sells image data."),
        goal="Book a call",
    )
    path = ["Customer Job", "Review", "Labels", "Product Feature"]
    for style in [s for s in ALL_STYLES if s.length == 0][:12]:
        body = write_email(store, path, sc, style, SENDER).body
        assert "three weeks" in body and "by hand" not in body, body


def test_a_fact_about_the_readers_own_company_is_not_told_to_them(synth: GraphStore) -> None:
    """Blind readers mark down an email that tells them their own business (packet S:
    2.6 against 4.5): a fact naming the reader's company is told to others only."""
    walk = ["Customer Job", "synthetic-data-use-cases-67d1b3c1",
            "data-augmentation-techniques-eddc9373", "data-augmentation-techniques-f8bef669",
            "Product Feature"]  # fmt: skip
    own = "Pearls of Wisdom are used"
    at = Scenario(id="at", goal="Secure a 20-minute discovery call", prospect=Prospect(
        name="Ben Carter", title="Senior Data Scientist", company="Pearls of Wisdom",
        notes="Increasing dataset size and diversity by creating modified copies."))  # fmt: skip
    away = at.model_copy(update={"prospect": at.prospect.model_copy(
        update={"company": "Acme Vision"})})  # fmt: skip
    for style in ALL_STYLES[::7]:
        told_at = write_email(synth, walk, at, style, SENDER).body
        assert own not in told_at
        # the walk's other fact ("Techniques like rotation, cropping ... are typically
        # used to augment image datasets") is a textbook statement: told to nobody
        assert "rotation, cropping" not in told_at
        if style.length >= 1:  # two facts fit: the other reader hears this one too
            assert own in write_email(synth, walk, away, style, SENDER).body


_TEXTBOOK = [
    "Predictive maintenance involves collecting vibration data, analysing trends and "
    "scheduling repairs",
    "Route optimisation can be applied to delivery fleets of any size",
    "Techniques like batching and caching are typically used to speed up web services",
    "Revenue management is a discipline that sets room prices from forecast demand",
    "Version control plays a central role in software delivery",
    "Access logs are essential for security audits",
    "Mean time to repair measures how quickly a team restores service",
    "Common payroll deductions include taxes, pensions and health insurance",
    "Common web metrics include p99 latency, LCP and time to first byte",
    # trouble only in when a technique applies, or two statements side by side
    "Load forecasting is used to plan shifts, especially in settings with scarce staff",
    "Uptime measures how long a service runs, while latency measures how fast it answers",
]
_NOT_TEXTBOOK = [
    "Challenges in route planning include late drivers and missed windows",
    "Manual scheduling takes 6 hours a week",
    "Most clinics still book appointments by phone",
    "Inspections can be delayed for weeks when a form is missing",
    "Payroll errors are a common reason restaurant staff quit",
    "Image datasets generated by Pearls of Wisdom are used to train models",
    "Privilege logs are typically built by associates in spreadsheets",
    "Returns processing can be a bottleneck before holidays",
    "Inspections can be delayed for weeks when a form is missing",
    "Uptime measures how long a service runs, while most outages go unnoticed for hours",
]


@pytest.mark.parametrize("text", _TEXTBOOK)
def test_a_textbook_statement_is_a_lecture(text: str) -> None:
    assert is_lecture(text)


@pytest.mark.parametrize("text", _NOT_TEXTBOOK)
def test_somebodys_trouble_or_a_named_party_is_no_lecture(text: str) -> None:
    assert not is_lecture(text)


_MTBF = (
    "MTBF",
    "Mean time between failures is the average time that passes between two breakdowns of a part.",
)
_INES = Scenario(prospect=Prospect(name="Ines Duarte", title="Head of Maintenance"),
                 goal="Book a call")  # fmt: skip


def _airline(facts: list[tuple[str, str]], product: str) -> tuple[GraphStore, list[str]]:
    """A chain Customer Job -> facts -> Product Feature about fleet maintenance (a field
    no graph of the corpus is in), and the walk along it."""
    ids = ["Customer Job", *(i for i, _ in facts), "Product Feature"]
    texts = ["Regional airlines keep their fleets flying.", *(t for _, t in facts), product]
    nodes = [
        {"id": i, "content": t, "edges": [{"target": ids[k + 1], "label": "leads to"}]}
        for k, (i, t) in enumerate(zip(ids[:-1], texts[:-1], strict=True))
    ]
    nodes.append({"id": ids[-1], "content": texts[-1]})
    return GraphStore.from_json(nodes), ids


def test_a_lecture_is_never_told_even_when_the_walk_holds_nothing_else() -> None:
    """Blind readers graded 1 of 5 the emails that explained the reader's own field to
    them ("explains synthetic data to a synthetic-data company"): a walk through a
    textbook statement or a definition tells the product, never the lecture."""
    upkeep = ("Upkeep", "Predictive maintenance involves collecting vibration data, "
              "analysing trends and scheduling repairs.")  # fmt: skip
    store, path = _airline([upkeep, _MTBF], "Vanefield flags a bearing weeks before it wears out.")
    notes = "Her fleet lost 40 flight days to unplanned repairs last year."
    sc = _INES.model_copy(update={"prospect": _INES.prospect.model_copy(update={"notes": notes})})
    for style in ALL_STYLES[::5]:
        body = write_email(store, path, sc, style, SENDER).body
        assert "involves" not in body and "average time" not in body, body
        assert "Vanefield" in body or "bearing" in body, body
        assert not broken_sentences(body), body


def test_a_subject_never_names_a_fact_the_body_does_not_tell() -> None:
    """A walk whose only fact is a lecture tells the product alone; its subject must
    not name the untold fact (panel Y's readers: "subject about precision/recall,
    body is just one product line")."""
    lecture = ("vibration-analysis-3f2a9c1d",
               "Vibration analysis is a key technique in condition monitoring.")  # fmt: skip
    store, path = _airline([lecture], "Vanefield flags a bearing weeks before it wears out.")
    for style in ALL_STYLES[::5]:
        email = write_email(store, path, _INES, style, SENDER)
        assert "Vibration analysis" not in email.body, email.body
        assert "vibration" not in email.subject.lower(), email.subject


def test_the_products_result_in_figures_is_its_proof() -> None:
    """Blind readers name a concrete result as what lifts an email ("a 30-50% cut";
    panel Z: 3.11 against 2.78 for the same walks without it): a product node's later
    sentence of what its customers got, in figures, is told in every length; a later
    sentence without a figure is not."""
    delays = ("Delays", "Unplanned bearing repairs ground aircraft for days at a time.")
    flags = "Vanefield flags a bearing weeks before it wears out. "
    store, path = _airline([delays], flags + "Operators in pilots typically cut unplanned "
                           "groundings by 40%.")  # fmt: skip
    for style in ALL_STYLES[::5]:
        body = write_email(store, path, _INES, style, SENDER).body
        assert "unplanned groundings by 40" in body, body
        assert not broken_sentences(body), body
    store, path = _airline([delays], flags + "Operators like the clear weekly summary.")
    for style in ALL_STYLES[::5]:
        assert "weekly summary" not in write_email(store, path, _INES, style, SENDER).body


def test_a_node_that_opens_on_a_definition_tells_its_other_sentence() -> None:
    """A definition is never told, but the node's next sentence may be a fact for the
    customer ("Every door opening can push a load out of range"): that one is told."""
    content = (
        _MTBF[1] + " Every unplanned bearing repair grounds an aircraft for two days on average."
    )
    for limit in (14, 20, 26):
        assert customer_fact(content, limit).text.startswith("Every unplanned bearing repair")


def test_it_after_a_definition_is_the_term_it_defined() -> None:
    content = (
        "Claim leakage is money paid out that should not have been. Industry studies "
        "commonly estimate it at 5 to 10% of claims paid."
    )
    told = customer_fact(content, 20).text
    assert told == "Industry studies commonly estimate claim leakage at 5 to 10% of claims paid"


def test_an_email_that_tells_only_the_product_is_titled_by_what_it_offers() -> None:
    """Nothing of the walk told, no notes: the subject says what the product offers,
    not a vague "your priorities" a reader takes for bait; also for a product named in
    a noun phrase ("Vanefield, featuring a dashboard for ...")."""
    offer = "a dashboard for bearing wear and repair planning."
    for product in (f"Vanefield has {offer}", f"Vanefield, featuring {offer}"):
        store, path = _airline([_MTBF], product)
        for style in ALL_STYLES[::5]:
            subject = write_email(store, path, _INES, style, SENDER).subject.lower()
            assert "priorities" not in subject, subject
            assert "dashboard for bearing wear" in subject, subject
    # a verb with no object to name ("sits on top of ...") names nothing
    assert _offered_np("Pickwise sits on top of the existing WMS") == ""


def test_textbook_statements_written_by_someone_who_never_saw_the_rule() -> None:
    """Sentences in 25+ fields, half textbook and half facts for a salesperson,
    written to be hard (neutral terms such as "mean squared error", facts that read
    like definitions) by two helpers who never saw the rule (round 13). The rule was
    refined on the first set's even lines (then its odd lines: 20 of 26 lectures, 1
    false alarm in 34 facts), then on the second set's even lines (its odd lines: 20
    of 21, 1 false alarm in 29; before that refinement the whole second set gave 29
    of 50 lectures, 1 false alarm in 50). Facts must almost never be lost: a fact
    taken for a lecture is a fact the email does not tell."""
    rows = [
        json.loads(line)
        for name in ("lecture_sentences.jsonl", "lecture_sentences_2.jsonl")
        for line in (Path(__file__).parent / name).read_text().splitlines()
    ]
    lectures = [r["text"] for r in rows if r["label"] == "textbook"]
    facts = [r["text"] for r in rows if r["label"] == "fact"]
    found = sum(is_lecture(t.rstrip(".")) for t in lectures)
    false_alarms = [t for t in facts if is_lecture(t.rstrip("."))]
    assert found >= 0.85 * len(lectures), found
    assert len(false_alarms) <= 3, false_alarms


def test_notes_lectures_and_facts_written_by_helpers_who_never_saw_the_rules() -> None:
    """Round 14: 300 sentences in 50+ fields (funeral homes to cruise lines), a third
    notes for the graph's author, a third textbook, a third facts for a salesperson,
    by two helpers blind to the code. Set 3 was read in full while the rules were
    widened; set 4 was measured before any change (author notes kept out 21 of 50 ->
    35 of 50 with set 3's rules; lectures 18 -> 34; facts lost 3 -> 3), then refined
    on its even lines only (its odd lines: author notes 20 -> 21 of 28, lectures 21 ->
    21 of 28, facts lost 0 of 19). A note or a lecture that slips through is one
    sentence an email should not say; a fact lost is one it cannot: the bar for facts
    is much the stricter."""
    rows = [
        json.loads(line)
        for name in ("note_sentences_3.jsonl", "note_sentences_4.jsonl")
        for line in (Path(__file__).parent / name).read_text().splitlines()
    ]

    def kept_out(t: str) -> bool:
        return is_meta(t) or is_lecture(t)

    notes = [r["text"] for r in rows if r["label"] == "author-note"]
    lectures = [r["text"] for r in rows if r["label"] == "textbook"]
    facts = [r["text"] for r in rows if r["label"] == "fact"]
    assert sum(map(kept_out, notes)) >= 0.85 * len(notes)
    assert sum(map(kept_out, lectures)) >= 0.6 * len(lectures)
    lost = [t for t in facts if kept_out(t)]
    assert len(lost) <= 2, lost


def test_an_abbreviation_in_brackets_does_not_hide_a_definition() -> None:
    assert is_lecture(
        "An intraoral scanner (IOS) is a handheld device that captures a 3D impression"
    )
    assert is_lecture("A site management organization (SMO) is a company that owns research sites")
    # conventions keep their figures and still lecture
    assert is_lecture("CMYK stands for cyan, magenta, yellow and key")
    assert is_lecture("Diameter at breast height is measured 1.3 metres above the ground")
    assert is_lecture("A standard parking stall is about 9 feet wide and 18 feet long")
    assert not is_lecture("Doors account for roughly 60-70% of all elevator callbacks")
    assert not is_lecture("Transport is the budget line charter schools most often overspend")
    # the "it" after a bracketed definition is the term, so the next sentence stands
    fact = customer_fact(
        "Vertical transportation (VT) is the discipline of building operations that covers "
        "elevators. It eats up to a tenth of an office building's operating budget."
    )
    assert fact.text.startswith("Vertical transportation eats"), fact


def test_a_quoted_term_in_a_fact_is_kept_and_a_quote_in_a_rationale_is_not() -> None:
    assert for_customer('Some 30-50% of PM hours are never performed, so-called "ghost visits".')
    assert reason_clause("The company's claim of 'high quality' implies an internal process.") == ""


def test_a_product_is_told_by_what_it_does_not_by_what_it_is() -> None:
    content = (
        "LiftSense is a sensor kit that mounts on the car top of any make of elevator and "
        "installs in under two hours. It flags developing door problems 3-10 days ahead "
        "and logs every contractor visit."
    )
    assert customer_fact(content, 30, True).text == (
        "LiftSense flags developing door problems 3-10 days ahead and logs every contractor visit"
    )
    # a first sentence that says what the product does still wins
    assert customer_fact(
        "Frostline alerts the driver as soon as a load drifts. It installs in an hour.", 30, True
    ).text.startswith("Frostline alerts")


def test_notes_told_to_the_reader_keep_every_verb_and_the_other_party_s_firm() -> None:
    from codreamer.agent.writer.notes import notes_told

    assert notes_told(
        "He reports to the asset manager and has been asked to present a plan by year end."
    ) == ("You report to the asset manager and have been asked to present a plan by year end",)
    assert notes_told("She manages three sites and is responsible for audits.") == (
        "You manage three sites and are responsible for audits",
    )
    told = notes_told(
        "Their team lost a law-firm tenant last year, and the firm cited elevator reliability."
    )
    assert told == (
        "Your team lost a law-firm tenant last year, and the firm cited elevator reliability",
    )


def test_the_ask_offers_what_the_goal_asks_for_to_the_reader_and_keeps_its_time() -> None:
    from codreamer.agent.writer.realise import timed

    assert (
        goal_object("Get agreement to a 30-day trial of ScanCheck") == "a 30-day trial of ScanCheck"
    )
    assert goal_object("Book a 30-minute meeting with her and the head of engineering") == (
        "a 30-minute meeting with you and the head of engineering"
    )
    assert goal_object("Request an introduction to her VP of Membership") == (
        "an introduction to your VP of Membership"
    )
    assert goal_object("Agree to a 90-day pilot on 50 rooftop units") == (
        "a 90-day pilot on 50 rooftop units"
    )
    assert not timed("a 30-day trial of ScanCheck")  # not "a trial next Tuesday"
    assert not timed("a 20-minute call before the October renewal")  # a time of its own
    assert timed("a 20-minute discovery call")
    store = GraphStore.from_json(_SLOT_GRAPH)
    path = store.paths_to_features()[0]
    for goal, must, never in (
        (
            "Get agreement to a 30-day trial of Frostline",
            "a 30-day trial of Frostline",
            "agreement",
        ),
        ("Book a 20-minute call before the October renewal", "before the October renewal", "next"),
    ):
        for s in ALL_STYLES:
            body = write_email(
                store, path, Scenario(prospect=Prospect(name="Kim Lee"), goal=goal), s
            ).body
            ask = [p for p in body.split("\n\n") if p.endswith("?")][-1]
            assert must in ask and never not in ask.lower(), ask


def test_a_walk_whose_way_on_runs_back_through_it_still_reaches_the_product() -> None:
    """On a new graph every trained email ended on a node whose only way to the
    product ran through a node the walk had passed: the product was never told, and
    readers graded all six 1 or 2 ("never says what we sell")."""

    def node(nid: str, content: str, *targets: str) -> dict:
        edges = [{"target": t, "label": "leads to", "rationale": "Because."} for t in targets]
        return {"id": nid, "content": content, "edges": edges}

    store = GraphStore.from_json(
        [
            node("Customer Job", "Universities manage federal research grants.", "Late Transfers"),
            node(
                "Late Transfers",
                "A third of cost transfers at some universities are late.",
                "Manual Review",
                "Product Feature",
            ),
            node(
                "Manual Review",
                "Grant accountants review every line of every award by hand.",
                "Late Transfers",
            ),
            node(
                "Product Feature", "AwardLens flags a charge posted to the wrong award in 48 hours."
            ),
        ]
    )
    sc = Scenario(prospect=Prospect(name="Angela Ruiz"), goal="Book a 20-minute call")
    for s in ALL_STYLES[:8]:
        e = write_email(store, ["Customer Job", "Late Transfers", "Manual Review"], sc, s)
        assert e.citations[-1] == "Product Feature", e.citations
        assert "AwardLens flags" in e.body or "with AwardLens" in e.body.lower(), e.body


def test_notes_that_name_the_reader_are_told_to_them_not_about_them() -> None:
    """ "Mr. Albrecht oversees ..." read back to Mr. Albrecht: every reader graded it 1
    ("a mail merge gone wrong"), on two new graphs."""
    from codreamer.agent.writer.notes import notes_told

    assert notes_told(
        "Mr. Albrecht oversees a 2,100-truck carrier and has committed to a 4% cut in cost.",
        "Richard Albrecht",
    ) == ("You oversee a 2,100-truck carrier and have committed to a 4% cut in cost",)
    assert notes_told("Dr. Langford leads research administration.", "Dr. Margaret Langford") == (
        "You lead research administration",
    )
    assert notes_told("Dana Kim's team lost a key account last year.", "Dana Kim") == (
        "Your team lost a key account last year",
    )
    # the telling stops where a sentence cannot be told: the next may lean on it
    assert notes_told("Growth, margins. Their broker warned about the score.") == ()


def test_a_past_event_with_its_time_is_a_clause() -> None:
    from codreamer.agent.writer.grammar import has_finite_verb

    assert has_finite_verb("Average cycle time rose from 11 to 17 days over the past year")
    assert has_finite_verb("An internal investigation last year required reviewing 14 months")
    assert has_finite_verb("Their team lost a law-firm tenant last year")
    # a participle with no time of its own stays a noun phrase (with one, it is read as
    # a past event: "a report generated last year by ..." is a known false reading)
    assert not has_finite_verb("A weekly report generated by the scheduling system")


def test_a_cut_never_leaves_a_clause_without_its_verb() -> None:
    s = (
        "Each late transfer needs a written justification that a PI and a department "
        "administrator must sign before the sponsor accepts it"
    )
    for limit in (10, 12, 14, 16, 20):
        out = cut(s, limit)
        assert not out.endswith("that a PI"), out


def test_the_goal_speaks_to_the_reader_it_names_by_title() -> None:
    from codreamer.agent.writer.realise import reader_in_goal

    ceo = "President & Chief Executive Officer"
    assert reader_in_goal("a 30-minute meeting with the CEO and CFO", ceo) == (
        "a 30-minute meeting with you and your CFO"
    )
    assert reader_in_goal("a briefing with the superintendent and CFO", "Superintendent") == (
        "a briefing with you and your CFO"
    )
    # another person's title is theirs
    assert reader_in_goal("a briefing with the superintendent", "Assistant Superintendent") == (
        "a briefing with the superintendent"
    )
    assert reader_in_goal("an introduction to the company's head of compliance", "Sales") == (
        "an introduction to your head of compliance"
    )


def test_notes_on_how_to_write_are_never_told_and_formal_ones_are_followed() -> None:
    from codreamer.agent.writer.notes import notes_told, prefers_formal

    notes = "Prefers formal, concise correspondence. The firm reports $140M in service revenue."
    assert notes_told(notes) == ("Your firm reports $140M in service revenue",)
    assert prefers_formal(notes) and prefers_formal("Communicates formally; 3 sites.")
    assert not prefers_formal("Runs a formal review of every vendor each year.")
    store = GraphStore.from_json(_SLOT_GRAPH)
    path = store.paths_to_features()[0]
    sc = Scenario(prospect=Prospect(name="Dr. Evelyn Marsh", notes=notes), goal="Book a call")
    for s in ALL_STYLES:
        body = write_email(store, path, sc, s).body
        assert body.startswith("Dear Dr. Marsh,") and "correspondence" not in body, body


def test_a_subject_names_the_measure_not_a_verdict_on_the_reader() -> None:
    from codreamer.agent.writer.subject import _readable

    assert _readable("Low First-Time Fix Rate") == "first-time fix rate"
    assert _readable("High Churn") == "churn"
    assert _readable("Slow Dashboards") == "slow dashboards"  # the problem itself


def test_what_the_product_does_is_told_only_in_a_sentence_of_readable_length() -> None:
    long_does = (
        "Acme is a platform for suppliers. It keeps every SKU's label, state registrations, "
        "price postings and distributor assignments in one record, warns 60, 30 and 7 days "
        "before each renewal or posting deadline, and files directly into state portals that "
        "accept electronic submissions when the vintage changes across every market."
    )
    assert customer_fact(long_does, 30, True).text == "Acme is a platform for suppliers"


def test_a_product_sentence_never_leans_on_a_sentence_it_leaves_out() -> None:
    """ "It also re-ranks overnight housekeeping moves ..." was told without the
    sentence that named the product: every reader graded those emails 1 ("the
    product is never named"), on a graph nobody had developed on (round 14)."""
    content = (
        "StackWise is an AI yard-planning layer that predicts each container's pickup "
        "date. It also re-ranks overnight housekeeping moves to fix buried boxes."
    )
    told = customer_fact(content, 30, True).text
    assert told.startswith("StackWise"), told
    fitted_only = (
        "StackWise is a sensor kit that mounts on any crane. It also re-ranks overnight "
        "housekeeping moves to fix buried boxes before the gate opens."
    )
    assert customer_fact(fitted_only, 30, True).text == (
        "StackWise re-ranks overnight housekeeping moves to fix buried boxes before the gate opens"
    )


def test_an_example_of_a_size_is_not_the_reader() -> None:
    """ "so a 20-store group has $10M+ on its shelves" told as "so your team has $10M+"
    claimed a figure about a reader with 9 stores (blind readers: "$10M+ is false")."""
    fact = "A store carries $500,000 of stock, so a 20-store group has $10M+ sitting on shelves"
    assert to_reader(fact, ("groups",)) == fact
    assert to_reader("Groups still order by hand", ("groups",)) == "you still order by hand"


def test_notes_keep_the_reader_s_facts_and_leave_out_how_we_know_them() -> None:
    from codreamer.agent.writer.notes import notes_told

    assert notes_told(
        "Her team wrote off $740,000 of expired stock last year, and she told a trade-show "
        "contact that half of it could have been moved.",
        "Ann Lee",
    ) == ("Your team wrote off $740,000 of expired stock last year",)
    assert notes_told("Two of their city stores received B grades last year.") == (
        "Two of your city stores received B grades last year",
    )
    assert notes_told("Is evaluating a rival add-on and wants to compare results first.") == (
        "You are evaluating a rival add-on and want to compare results first",
    )


def test_a_formal_greeting_uses_the_title_the_notes_call_the_reader_by() -> None:
    """Readers marked both "Dear Margaret" to a reader who asked for formality and the
    stiff "Dear Richard Castellano": the notes' own "Mr. Castellano" is the title to
    use; none is ever guessed; a suffix ("III") is never greeted."""
    store = GraphStore.from_json(_SLOT_GRAPH)
    path = store.paths_to_features()[0]

    def greeting(name: str, notes: str) -> set[str]:
        sc = Scenario(prospect=Prospect(name=name, notes=notes), goal="Book a call")
        return {write_email(store, path, sc, s).body.split("\n")[0] for s in ALL_STYLES[:6]}

    assert greeting("Richard Castellano", "Mr. Castellano prefers formal correspondence.") == {
        "Dear Mr Castellano,"
    }
    assert greeting("Margaret Harmon", "Prefers formal correspondence.") == {"Dear Margaret,"}
    assert greeting("William Beauregard III", "Prefers formal correspondence.") == {"Dear William,"}


def test_the_plain_swaps_keep_a_superlative() -> None:
    from codreamer.agent.writer.voice import plain

    assert plain("the most commonly reported setting") == "the most commonly reported setting"


def test_a_note_told_with_the_reader_as_subject_makes_their_things_theirs() -> None:
    from codreamer.agent.writer.notes import notes_told

    assert notes_told(
        "Does not own yard planning but works closely with the manager of their largest terminal."
    ) == (
        "You do not own yard planning but work closely with the manager of your largest terminal",
    )
    # with another subject, a "their" may be another party's: it stays
    assert notes_told("The group is buying two distilleries to merge their compliance teams.") == (
        "The group is buying two distilleries to merge their compliance teams",
    )


def test_a_job_title_in_the_goal_keeps_its_capitals() -> None:
    assert not problems("Would you consider an introduction to your VP of Membership?")
    assert problems("Costs rise because of Membership churn.")


def test_a_cut_never_takes_one_item_of_a_list_for_the_whole_object() -> None:
    """ "Rootline combines soil moisture probes." was all a new graph's product said
    (readers: "product sentence truncated")."""
    s = (
        "Rootline combines soil moisture probes, local ET weather data and pivot telemetry "
        "into a daily irrigation recommendation for every field, and lets managers stop "
        "pivots from a phone"
    )
    for limit in (8, 12, 16, 24):
        assert not cut(s, limit).endswith("soil moisture probes"), cut(s, limit)


def test_a_node_is_told_by_a_sentence_that_does_not_point_back() -> None:
    """ "When that supervisor is out, jobs stall ..." was told without the sentence
    that introduced the supervisor (readers: "'that supervisor' lacks an antecedent")."""
    content = (
        "In most shops the press schedule lives on a whiteboard or in the head of one "
        "production supervisor, and it is rebuilt by hand several times a day as proofs are "
        "approved and paper arrives. When that supervisor is out, jobs stall because nobody "
        "else knows the plan."
    )
    assert customer_fact(content).text.startswith("In most shops the press schedule")


def test_notes_give_one_hook_and_never_tell_the_reader_their_own_job(repo_root: Path) -> None:
    """Readers graded notes openers of two sentences (who the reader is, then the
    problem) 1.84 of 5 and a one-sentence hook 2.65: the email tells the one notes
    sentence that bears most on its facts, and never one that only says who the
    reader is ("You run a 40-truck reefer fleet in Ohio")."""
    from codreamer.agent.writer.notes import is_role

    store = load_graph(repo_root / "data" / "graph.json")
    notes = (
        "She runs a 40-truck reefer fleet out of Columbus, Ohio. Her team lost two loads of "
        "chilled dairy to a failed reefer compressor in June, and the retailer charged the "
        "spoilage write-off back to them. She reports to the COO."
    )
    sc = Scenario(
        id="role-then-pain",
        prospect=Prospect(
            name="Dana Ruiz", title="Fleet Manager", company="Ruiz Cold Haul", notes=notes
        ),  # fmt: skip
        goal="Book a 20-minute call",
    )
    walk = ["Customer Job", "Reefer Unit Failures", "Spoilage Write-offs", "Product Feature"]
    walk = [n for n in walk if n in store] or shortest_path(store, "Customer Job")
    for style in ALL_STYLES[::7]:
        body = write_email(store, walk, sc, style).body
        assert "40-truck" not in body and "COO" not in body, body
        told = [s for s in ("lost two loads", "40-truck", "reports to") if s in body]
        assert len(told) <= 1, body
    assert is_role("You run a 40-truck reefer fleet out of Columbus, Ohio")
    assert is_role("You oversee an organization of 640 employees across 11 stations")
    assert not is_role(
        "You run two plants, and one of them missed three deliveries to a bank in March"
    )
    assert not is_role("You are comparing sensor vendors you could resell")


def test_sentences_the_writer_shortens_or_turns_stay_whole_and_agree() -> None:
    """Defects blind readers found on graphs the writer had never seen (round 15):
    a product named "X by Y Systems is" turned to "are"; "counsel told her they ..."
    told as "told your they"; a fact cut inside an aside ("under the FLSA and, in
    states.")."""
    from codreamer.agent.writer.notes import notes_told
    from codreamer.agent.writer.voice import agree

    assert agree("ShiftProof by Brightwell Systems is a mobile app.").startswith(
        "ShiftProof by Brightwell Systems is "
    )
    assert agree("Slow dashboards goes hand in hand with churn.").startswith("Slow dashboards go ")
    told = notes_told(
        "In February the company received a notice, and counsel told her they have no "
        "reliable records to show breaks were offered.",
        "Lucia Ramos",
    )
    assert told and "told you they have" in told[0]
    fact = (
        "Janitorial employers face federal overtime rules under the FLSA and, in states "
        "such as California, strict meal and rest break requirements with a one-hour "
        "premium for each missed break."
    )
    out = cut(fact, 22)
    assert not re.search(r"\b(?:and|or|but),\s[^,]*$", out), out


def test_notes_that_open_on_what_the_reader_is_doing_are_told_as_a_sentence() -> None:
    """Round 15's readers: "If I have it right, evaluating replacements for the phone
    IVR ..." and "Curious whether AI-suggested redaction ..., I gather" are broken
    openers; "In March they lost ..." slips a pronoun. Told to the reader, each is
    theirs, whole; a gerund that is the sentence's subject stays as it is."""
    from codreamer.agent.writer.notes import notes_told

    told = notes_told(
        "Evaluating replacements for the phone IVR clock-in system before the contract "
        "renews in July; curious whether geofenced punches work in large warehouses."
    )
    assert told == (
        "You are evaluating replacements for the phone IVR clock-in system before the "
        "contract renews in July",
        "You are curious whether geofenced punches work in large warehouses",
    )
    assert notes_told("In March they lost a $420,000-a-year office campus to a rival.") == (
        "In March you lost a $420,000-a-year office campus to a rival",
    )
    assert notes_told("Onboarding takes three weeks for every new hire.") == (
        "Onboarding takes three weeks for every new hire",
    )


def test_a_meeting_of_something_keeps_its_kind() -> None:
    """ "Set up a 45-minute demo of video redaction ..." was asked as "a 45-minute
    conversation of video redaction" (every reader: "garbled ask"): what "of" belongs
    to is the kind, which stays."""
    variants = goal_variants("a 45-minute demo of video redaction for the records unit")
    assert variants and all(" demo " in f" {v} " for v in variants), variants
    assert not any("minutes of video" in v for v in variants), variants
    assert any("conversation" in v for v in goal_variants("a 20-minute call"))


def test_shorthand_notes_steer_but_are_never_pasted() -> None:
    """Round 15's readers graded 1 of 5 the emails that read the seller's jottings
    back ("4 analysts, 2 quit since Jan. ~40 min/alert", "pasted CRM shorthand");
    notes written as sentences are still told."""
    from codreamer.agent.writer.notes import is_shorthand, notes_told

    for jottings in (
        "4 analysts, 2 quit since Jan. ~40 min/alert. Hiring slow.",
        "26 pivots. Lost an irrigator in June. Diesel pumps on half.",
        "Owner-op. 11 techs, only 3 NICET II. Paper forms. ~2 inspections/tech/day.",
        "6 ASCs. spine/ortho heavy. loaners late, IFUs missing.",
    ):
        assert is_shorthand(jottings)
        assert notes_told(jottings, "Tyrone Bell") == ()
    prose = (
        "Members have asked the co-op for an irrigation scheduling service since the "
        "district cut allocations by 20%, and she is comparing sensor vendors."
    )
    assert not is_shorthand(prose)
    assert notes_told(prose, "Sarah Kim")


def test_a_later_sentence_s_also_and_an_id_s_inner_capitals_are_not_mistakes() -> None:
    """ "FinCEN guidance also expects ..." opened an email's facts with an "also" that
    added to nothing told; the subject "Baas partner volume" read as a typo."""
    from codreamer.agent.writer.subject import _case
    from codreamer.agent.writer.text import drop_subject_also

    s = "FinCEN guidance also expects continuing activity to be reviewed at 90 days"
    assert drop_subject_also(s) == (
        "FinCEN guidance expects continuing activity to be reviewed at 90 days"
    )
    assert drop_subject_also("It is also common") == "It is also common"
    assert _case(["BaaS", "Partner", "Volume"]) == "BaaS partner volume"
    assert _case(["Late", "Alerts"]) == "late alerts"


def test_a_run_on_list_of_what_a_product_does_loses_its_last_item() -> None:
    """A 48-word product sentence ("... that pulls X, sequences Y ..., and
    recalculates Z ...") was told whole, and the judge marked every email of its graph
    a run-on: the list loses its last item, the two left joined by "and"."""
    product = (
        "Pressgrid by Lanternfold Software is a finite-capacity scheduling and live "
        "job-costing tool for commercial printers that pulls job tickets from the shop's "
        "MIS, sequences them across presses by ink, stock and sheet size to cut makeready, "
        "and recalculates the whole schedule in seconds when a rush job lands."
    )
    fact = customer_fact(product, 24, first=True)
    assert len(fact.text.split()) <= 45, fact.text
    assert fact.text.endswith("to cut makeready")
    assert "MIS and sequences them" in fact.text


def test_a_goal_s_wordings_keep_the_article_its_kind_needs() -> None:
    """ "Book a 15-minute intro call" was asked as "15 minutes for a intro call"."""
    for v in goal_variants("a 15-minute intro call"):
        assert not re.search(r"\ba (?=[aeiou])", v), v


def test_round_15_panel_l_defects_stay_fixed() -> None:
    """What panel L's readers found on graphs the writer had never seen: a sentence
    that leans on the one before ("The rest are covered by a broker ..."), told
    alone; "Its first request ..." told bare; "your seniors spending your evenings";
    a product told by a later sentence that never names it."""
    from codreamer.agent.writer.notes import notes_told

    node = (
        "A dedicated CPG field rep covers 8-12 stores a day and sees each store every two "
        "to four weeks, so a brand with 30 reps reaches perhaps 3,000 of its 15,000 doors "
        "on a regular cadence. The rest are covered by a broker on a shared, multi-brand "
        "call, or not at all, which makes the choice of which stores to visit a major lever."
    )
    assert customer_fact(node, 24).text.startswith("A dedicated CPG field rep")
    told = notes_told(
        "Kiowa Valley won a $31M BEAD subgrant covering 6,400 locations that must be "
        "completed within four years. Its first reimbursement request was sent back by "
        "the state broadband office.",
        "Renee Fox",
    )
    assert told[1].startswith("Your first reimbursement request")
    told = notes_told(
        "She wants clients to deliver earlier without her seniors spending their "
        "evenings chasing them.",
        "Jessica Lee",
    )
    assert told == (
        "You want clients to deliver earlier without your seniors spending their "
        "evenings chasing them",
    )
    product = (
        "LineProof by Ferrule Systems is a field-to-GIS closeout platform for fiber "
        "builds: crews use its mobile app to capture GPS-tagged photos, footage markers, "
        "bore logs and splice details against the design at each step, and LineProof "
        "builds the as-built automatically and pushes it daily to Esri, 3-GIS, IQGeo or "
        "VETRO. Captured quantities are reconciled line by line against subcontractor "
        "invoices."
    )
    fact = customer_fact(product, 24, first=True)
    assert "LineProof" in fact.text, fact.text


def test_a_cut_never_leaves_a_verb_without_its_which_question() -> None:
    """ "... many brands cannot say which events actually ran" was cut to "many brands
    can't say." (panel L): "which" after "say" is the verb's object."""
    out = cut(
        "Industry surveys repeatedly find that most promotions do not break even, and many "
        "brands cannot say which events actually ran at shelf in any given quarter.",
        18,
    )
    assert not out.rstrip(".").endswith(("say", "cannot say")), out


def test_a_goal_that_names_the_reader_asks_them() -> None:
    """Panel M: "Might a short intro meeting with Mr. Castellanos and your VP of Asset
    Reporting be of interest?", sent to Mr. Castellanos (every reader graded it 1)."""
    from codreamer.agent.writer.notes import notes_told
    from codreamer.agent.writer.realise import reader_in_goal

    obj = goal_object("Request an intro meeting with Mr. Castellanos and his VP of Asset Reporting")
    assert reader_in_goal(obj, "COO", "Robert Castellanos") == (
        "an intro meeting with you and your VP of Asset Reporting"
    )
    assert reader_in_goal("a call with Robert Castellanos", "COO", "Robert Castellanos") == (
        "a call with you"
    )
    # someone else named stays named
    assert reader_in_goal("an intro to Ms. Okafor", "COO", "Robert Castellanos") == (
        "an intro to Ms. Okafor"
    )

    # the owners' asset managers are theirs, not the reader's (panel M)
    assert notes_told(
        "Mr. Castellanos is onboarding three new owner portfolios this year, and their "
        "asset managers have asked for benchmarks.",
        "Robert Castellanos",
    ) == (
        "You are onboarding three new owner portfolios this year, and their asset "
        "managers have asked for benchmarks",
    )


def test_round_15_panel_n_defects_stay_fixed() -> None:
    """Panel N's readers: "for you's office", "before their March budget deadline",
    "you lead ... and reports to", "at their home opener", "they ended up selling",
    "Middle schools run highest." and "follow similar rules" told alone."""
    from codreamer.agent.writer.notes import notes_told
    from codreamer.agent.writer.realise import reader_in_goal

    assert (
        reader_in_goal(
            goal_object("Book a 30-minute demo for the controller's office and the hedge desk"),
            "Controller",
            "Renata Gil",
        )
        == "a 30-minute demo for your office and the hedge desk"
    )
    assert (
        reader_in_goal(
            "a working session before their March budget deadline", "Director", "Owen Park"
        )
        == "a working session before your March budget deadline"
    )
    assert notes_told(
        "Ms. Okafor leads a 31-location cooperative and reports to a farmer board.",
        "Adaeze Okafor",
    ) == ("You lead a 31-location cooperative and report to a farmer board",)
    assert notes_told("At their home opener 14,000 fans were still outside at kickoff.") == (
        "At your home opener 14,000 fans were still outside at kickoff",
    )
    told = notes_told(
        "He manages 61 bins. In April a tank went out of condition, and they ended up "
        "selling grain to a feedlot at a discount.",
        "Al Bo",
    )
    assert told[1].endswith("and you ended up selling grain to a feedlot at a discount")
    # a plural before "their" may own it, outside a sentence told to "you"
    assert notes_told("The group is buying two distilleries to merge their teams.") == (
        "The group is buying two distilleries to merge their teams",
    )
    assert customer_fact(
        "Breakage runs 10-20 percent of devices a year in most districts. Middle schools "
        "run highest.",
        24,
    ).text.startswith("Breakage runs")
    assert customer_fact(
        "Fan screening became mandatory at NFL stadiums in 2011 after a league directive. "
        "Most NBA and NHL arenas follow similar rules, so every fan passes a lane.",
        24,
    ).text.startswith("Fan screening")
