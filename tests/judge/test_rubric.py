# ruff: noqa: E501  (email bodies are written one paragraph per line, as sent)
"""The rubric judge on hand-written good and bad emails (issue 2 acceptance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codreamer.agent.compose import ALL_STYLES, compose_email, shortest_path
from codreamer.graph.store import GraphStore
from codreamer.judge.rubric import CRITERIA, GATES, WEIGHTED, RubricJudge, RubricWeights
from codreamer.loaders import load_graph
from codreamer.models import FinalEmail, Prospect, Scenario

SCENARIO = Scenario(
    id="acme",
    prospect=Prospect(name="Alex Rivera", title="VP Engineering", company="Acme FinTech",
                      industry="FinTech"),
    goal="Secure a 20-minute discovery call",
)  # fmt: skip

PATH = ["Customer Job", "Process for Quality Validation", "Human-in-the-Loop Workflow",
        "Annotation Guideline Management", "Product Feature"]  # fmt: skip

GOOD = FinalEmail(
    subject="Alex, an idea for Acme FinTech",
    body="""Hi Alex,

I have been reading about Acme FinTech's work, and one thing stood out. Your team generates high quality synthetic data for LLM pre-training from marketing content like landing pages, blog posts, user reviews, and news.

That leads to a question of proof: you validate synthetic data quality by evaluating the performance of models trained on it. In turn, that validation requires a human-in-the-loop workflow for qualitative assessment of model outputs.

Which brings us to consistency: the workflow needs clear annotation guideline management, so every reviewer scores outputs the same way.

This is where we can help. Weave gives your reviewers a UI for feedback and model evaluation, with rubrics built in.

Would you be open to a 20-minute discovery call next week?

Best regards,
Sam from CoDreamer""",
    citations=PATH,
)

FRENCH = FinalEmail(
    subject="Alex, une idée pour Acme FinTech",
    body="""Bonjour Alex,

J'ai lu des informations sur le travail d'Acme FinTech, et une chose m'a frappé. Votre équipe génère des données synthétiques de haute qualité pour le pré-entraînement des LLM à partir de contenus marketing.

Cela soulève une question de preuve : vous validez la qualité des données en évaluant les modèles entraînés sur elles. Cette validation exige un processus avec des humains dans la boucle pour évaluer les réponses des modèles.

C'est là que nous pouvons vous aider. Weave offre à vos évaluateurs une interface pour le feedback et l'évaluation des modèles.

Seriez-vous disponible pour un appel de découverte de 20 minutes la semaine prochaine ?

Cordialement,
Sam de CoDreamer""",
    citations=PATH,
)


@pytest.fixture(scope="module")
def weave(shared_kg: Path) -> GraphStore:
    return load_graph(shared_kg / "weave-feedback-5.json")


@pytest.fixture(scope="module")
def synth(shared_kg: Path) -> GraphStore:
    return load_graph(shared_kg / "synthetic-data-16.json")


@pytest.fixture(scope="module")
def judge(weave: GraphStore) -> RubricJudge:
    return RubricJudge(weave)


def test_shape_and_weights(judge: RubricJudge) -> None:
    j = judge.judge(GOOD, SCENARIO)
    assert list(j.criteria) == list(CRITERIA)
    assert all(0.0 <= c.score <= 1.0 and c.reason for c in j.criteria.values())
    assert sum(j.criteria[n].weight for n in WEIGHTED) == pytest.approx(1.0, abs=1e-3)
    assert all(j.criteria[n].weight == 0.0 for n in GATES)
    assert sum(RubricWeights().as_dict().values()) == pytest.approx(1.0)


def test_hand_written_good_email_scores_high(judge: RubricJudge) -> None:
    j = judge.judge(GOOD, SCENARIO)
    assert j.total >= 0.9, j.criteria
    assert j.criteria["grounding"].score >= 0.8  # paraphrased, not copied
    assert j.criteria["argument_chain"].score == 1.0
    assert j.criteria["call_to_action"].score == 1.0
    assert j.criteria["personalisation"].score == 1.0


def test_composed_shortest_path_email_on_synthetic_16(synth: GraphStore) -> None:
    email = compose_email(synth, shortest_path(synth), SCENARIO)
    assert RubricJudge(synth).judge(email, SCENARIO).total >= 0.85


def test_bare_list_of_facts_scores_low(synth: GraphStore) -> None:
    path = shortest_path(synth)
    for sep in ("\n", "\n\n"):
        bare = FinalEmail(
            subject="Quick note: Secure a 20-minute discovery call",
            body=sep.join(synth.content(n) for n in path)
            + "\n\nGoal: Secure a 20-minute discovery call",
            citations=path,
        )
        j = RubricJudge(synth).judge(bare, SCENARIO)
        assert j.total <= 0.5, j
        assert j.criteria["personalisation"].score == 0.0
        assert j.criteria["call_to_action"].score <= 0.2
        assert j.criteria["argument_chain"].score < 0.5  # facts listed, not linked


def test_translation_scores_much_lower(judge: RubricJudge) -> None:
    en = judge.judge(GOOD, SCENARIO)
    fr = judge.judge(FRENCH, SCENARIO)
    assert fr.criteria["english"].score == 0.0
    assert "French" in fr.criteria["english"].reason
    assert fr.total <= en.total - 0.3


def test_german_scores_low_on_english(judge: RubricJudge) -> None:
    de = FinalEmail(
        subject="Eine Idee für Acme FinTech",
        body="Hallo Alex,\n\nwir haben gesehen, dass Ihr Team synthetische Daten erzeugt. "
        "Die Qualität der Daten ist für uns sehr wichtig, und wir können Ihnen helfen.\n\n"
        "Haben Sie Zeit für ein kurzes Gespräch?\n\nViele Grüße,\nSam",
        citations=PATH,
    )
    assert judge.judge(de, SCENARIO).criteria["english"].score == 0.0


def test_unknown_citations_score_zero_grounding(judge: RubricJudge) -> None:
    llm = GOOD.model_copy(update={"citations": ["Quality Process", "Weave UI"]})
    j = judge.judge(llm, SCENARIO)
    assert j.criteria["grounding"].score == 0.0
    assert "unknown" in j.criteria["grounding"].reason
    assert j.criteria["argument_chain"].score == 0.0
    mixed = GOOD.model_copy(update={"citations": [*PATH, "Made Up"]})
    g = judge.judge(mixed, SCENARIO).criteria["grounding"]
    assert 0.5 < g.score < 1.0 and "'Made Up'" in g.reason


@pytest.mark.parametrize(
    "placeholder", ["[Your Name]", "[Company Name]", "{{first_name}}", "<NAME>", "TODO",
                    "Lorem ipsum dolor"],
)  # fmt: skip
def test_placeholders_zero(judge: RubricJudge, placeholder: str) -> None:
    email = GOOD.model_copy(update={"body": GOOD.body.replace("Sam from CoDreamer", placeholder)})
    j = judge.judge(email, SCENARIO)
    assert j.criteria["no_placeholders"].score == 0.0
    assert j.total == 0.0


def test_spam_low(judge: RubricJudge) -> None:
    spam = GOOD.model_copy(
        update={
            "subject": "ACT NOW!!! LIMITED TIME OFFER",
            "body": GOOD.body.replace(
                "Would you", "This is 100% guaranteed, click here! Would you"
            ),
        }
    )
    j = judge.judge(spam, SCENARIO)
    assert j.criteria["no_spam"].score <= 0.25
    assert j.total < 0.3
    one = GOOD.model_copy(update={"body": GOOD.body + "\nP.S. Act now."})
    assert judge.judge(one, SCENARIO).criteria["no_spam"].score == 0.75


def test_acronyms_are_not_spam(judge: RubricJudge) -> None:
    email = GOOD.model_copy(update={"body": GOOD.body.replace("LLM", "LLM (HIPAA, GDPR)")})
    assert judge.judge(email, SCENARIO).criteria["no_spam"].score == 1.0


def test_cta_forms(judge: RubricJudge) -> None:
    stated = GOOD.model_copy(
        update={"body": GOOD.body.replace(
            "Would you be open to a 20-minute discovery call next week?",
            "I would welcome a 20-minute discovery call next week.")}
    )  # fmt: skip
    assert judge.judge(stated, SCENARIO).criteria["call_to_action"].score == 0.5
    other = GOOD.model_copy(
        update={"body": GOOD.body.replace(
            "Would you be open to a 20-minute discovery call next week?", "Thoughts?")}
    )  # fmt: skip
    assert judge.judge(other, SCENARIO).criteria["call_to_action"].score == 0.3


def test_empty_and_degenerate_emails(judge: RubricJudge) -> None:
    for email in (
        FinalEmail(subject="", body="", citations=[]),
        FinalEmail(subject="x", body="   \n\n ", citations=["Customer Job"]),
        FinalEmail(subject="!!!", body="?", citations=["Customer Job", "Customer Job"]),
    ):
        j = judge.judge(email, SCENARIO)
        assert 0.0 <= j.total <= 0.2
        assert set(j.criteria) == set(CRITERIA)


def test_without_a_graph() -> None:
    j = RubricJudge(None).judge(GOOD, SCENARIO)
    for name in ("grounding", "argument_chain"):
        assert "no graph" in j.criteria[name].reason
        assert j.criteria[name].weight == 0.0
    assert sum(j.criteria[n].weight for n in WEIGHTED) == pytest.approx(1.0, abs=1e-3)
    assert j.total >= 0.9


def test_argument_chain_partial_credit(repo_root: Path) -> None:
    store = load_graph(repo_root / "data" / "graph.json")
    judge = RubricJudge(store)
    scores = [
        judge.judge(compose_email(store, p, SCENARIO), SCENARIO).criteria["argument_chain"].score
        for p in (["Customer Job"], ["Customer Job", "Margin Pressure"],
                  ["Customer Job", "Margin Pressure", "Spoilage Write-offs", "Late Alerts"],
                  ["Customer Job", "Margin Pressure", "Spoilage Write-offs", "Late Alerts",
                   "Product Feature"])
    ]  # fmt: skip
    assert scores[0] == 0.0
    assert 0.0 < scores[1] < scores[2] <= 0.5 < scores[3] == 1.0
    dead = judge.judge(compose_email(store, ["Customer Job", "Driver Turnover"], SCENARIO),
                       SCENARIO).criteria["argument_chain"]  # fmt: skip
    assert "dead end" in dead.reason
    wrong_start = FinalEmail(subject="s", body="b", citations=["Late Alerts", "Product Feature"])
    assert judge.judge(wrong_start, SCENARIO).criteria["argument_chain"].score == 0.0


def test_style_and_path_choices_matter(repo_root: Path) -> None:
    """What the learning engine needs: the best email is clearly better than average."""
    store = load_graph(repo_root / "data" / "graph.json")
    judge = RubricJudge(store)
    paths = [["Customer Job"], ["Customer Job", "Food Safety Audits"],
             *store.paths_to_features(max_hops=6)]  # fmt: skip
    rewards = [
        judge.judge(compose_email(store, p, SCENARIO, s), SCENARIO).total
        for p in paths
        for s in ALL_STYLES
    ]
    assert max(rewards) >= 0.95
    assert sum(rewards) / len(rewards) <= 0.8 * max(rewards)


def test_deterministic(judge: RubricJudge, weave: GraphStore) -> None:
    a = judge.judge(GOOD, SCENARIO)
    b = RubricJudge(weave).judge(GOOD, SCENARIO)
    assert a == b
    assert a.model_dump_json() == judge.judge(GOOD, SCENARIO).model_dump_json()
