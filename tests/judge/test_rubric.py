# ruff: noqa: E501  (email bodies are written one paragraph per line, as sent)
"""The rubric judge v2 (DESIGN §4, issue 9) on hand-written emails: what it rewards,
what it refuses to be fooled by, and the properties learning depends on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codreamer.agent.style import ALL_STYLES
from codreamer.agent.writer import write_email
from codreamer.graph.search import shortest_path
from codreamer.graph.store import GraphStore
from codreamer.judge.rubric import CRITERIA, GATES, WEIGHTED, RubricJudge
from codreamer.judge.rubric.total import default_total, unscored_of
from codreamer.loaders import load_graph, load_scenarios
from codreamer.models import FinalEmail, Prospect, Scenario, Sender
from tests.support.paths import KG, REPO

SCENARIO = Scenario(
    id="acme",
    prospect=Prospect(name="Alex Rivera", title="VP Engineering", company="Acme FinTech",
                      industry="FinTech", tech_stack=["Python", "Kafka"],
                      notes="Reviewers grade model outputs inconsistently."),
    goal="Secure a 20-minute discovery call",
)  # fmt: skip

PATH = ["Customer Job", "Process for Quality Validation", "Human-in-the-Loop Workflow",
        "Annotation Guideline Management", "Product Feature"]  # fmt: skip

GOOD = FinalEmail(
    subject="Alex, consistent human review for your data",
    body="""Hi Alex,

Teams that generate synthetic data for LLM pre-training usually prove its quality by training models on it and checking how they perform. For the subtle cases that metrics miss, people review the outputs, and that only works if every reviewer follows the same guidelines.

W&B Weave gives you one place to manage those rubrics and collect structured feedback on each model call, from the UI or programmatically through the SDK your Python team already uses.

Would you be open to a 20-minute discovery call next week?

Best,
Sam Carter""",
    citations=PATH,
)

PASTED = FinalEmail(
    subject="Alex, consistent human review for your data",
    body="""Hi Alex,

Generates high quality synthetic data for LLM pre-training from marketing content like landing pages, blogsposts, user reviews, and news. Validates synthetic data quality by evaluating the performance of models trained on it. Requires a human-in-the-loop workflow for qualitative assessment of model outputs. Defines and manages annotation guidelines and rubrics for reviewers.

Efficiently evaluating LLM applications requires robust tooling to collect and analyze feedback. W&B Weave provides an integrated feedback system, allowing users to provide call feedback directly through the UI or programmatically via the SDK.

Would you be open to a 20-minute discovery call next week?

Best,
Sam Carter""",
    citations=PATH,
)

FRENCH = FinalEmail(
    subject="Alex, une idée pour Acme FinTech",
    body="""Bonjour Alex,

Votre équipe génère des données synthétiques de haute qualité pour le pré-entraînement des LLM. Vous validez la qualité des données en évaluant les modèles entraînés sur elles, et cette validation exige des humains dans la boucle.

Weave offre à vos évaluateurs une interface pour le feedback et l'évaluation des modèles.

Seriez-vous disponible pour un appel de découverte de 20 minutes la semaine prochaine ?

Cordialement,
Sam Carter""",
    citations=PATH,
)


def _with(email: FinalEmail, old: str, new: str) -> FinalEmail:
    assert old in email.body
    return email.model_copy(update={"body": email.body.replace(old, new)})


@pytest.fixture(scope="module")
def weave(shared_kg: Path) -> GraphStore:
    return load_graph(shared_kg / "weave-feedback-5.json")


@pytest.fixture(scope="module")
def synth(shared_kg: Path) -> GraphStore:
    return load_graph(shared_kg / "synthetic-data-16.json")


@pytest.fixture(scope="module")
def sample(repo_root: Path) -> GraphStore:
    return load_graph(repo_root / "data" / "graph.json")


@pytest.fixture(scope="module")
def judge(weave: GraphStore) -> RubricJudge:
    return RubricJudge(weave)


def test_shape_and_weights(judge: RubricJudge) -> None:
    j = judge.judge(GOOD, SCENARIO)
    assert list(j.criteria) == list(CRITERIA)
    assert all(0.0 <= c.score <= 1.0 and c.reason for c in j.criteria.values())
    assert sum(j.criteria[n].weight for n in WEIGHTED) == pytest.approx(1.0, abs=1e-3)
    assert all(j.criteria[n].weight == 0.0 for n in GATES)
    # The total is the fitted model's, and its weights are non-negative (monotone).
    scores = {n: c.score for n, c in j.criteria.items()}
    unscored = unscored_of({n: c.reason for n, c in j.criteria.items()})
    assert j.total == pytest.approx(default_total().total(scores, unscored), abs=1e-3)
    assert all(w >= 0 for w in default_total().weights.values())


def test_a_paraphrased_human_email_scores_high(judge: RubricJudge) -> None:
    j = judge.judge(GOOD, SCENARIO)
    assert j.total >= 0.75, j.criteria
    assert j.criteria["argument"].score == 1.0
    assert j.criteria["grounding"].score >= 0.7  # paraphrased, not copied
    assert j.criteria["call_to_action"].score == 1.0
    assert j.criteria["sendability"].score == 1.0


def test_pasting_node_text_is_no_better_than_paraphrase(judge: RubricJudge) -> None:
    good, pasted = judge.judge(GOOD, SCENARIO), judge.judge(PASTED, SCENARIO)
    assert pasted.criteria["grounding"].score < good.criteria["grounding"].score
    assert "copied from the graph" in pasted.criteria["grounding"].reason
    assert pasted.total < good.total - 0.05


def test_citation_order_is_irrelevant_and_customer_job_implicit(judge: RubricJudge) -> None:
    base = judge.judge(GOOD, SCENARIO)
    for citations in (list(reversed(PATH)), PATH[1:], [PATH[4], PATH[2], PATH[1], PATH[3]]):
        j = judge.judge(GOOD.model_copy(update={"citations": citations}), SCENARIO)
        assert j.criteria["argument"].score == base.criteria["argument"].score, citations
        assert abs(j.total - base.total) <= 0.02


def test_citations_that_support_nothing_earn_nothing(sample: GraphStore) -> None:
    scenario = Scenario(prospect=Prospect(name="Priya Natarajan", company="Northfield Dairy"),
                        goal="Secure a 20-minute discovery call")  # fmt: skip
    body = "Hi Priya,\n\nMost temperature excursions start while a trailer is loaded or unloaded, or when a refrigeration unit fails. Frostline's wireless probes read every pallet's temperature each minute and alert the driver and dispatcher as soon as a load starts to drift.\n\nWould you be open to a 20-minute discovery call?\n\nBest,\nSam Carter"
    judge = RubricJudge(sample)
    exact = judge.judge(FinalEmail(subject="Temperature drift", body=body,
                                   citations=["Temperature Excursions", "Product Feature"]), scenario)  # fmt: skip
    everything = judge.judge(FinalEmail(subject="Temperature drift", body=body,
                                        citations=list(sample.nodes)), scenario)  # fmt: skip
    assert exact.criteria["argument"].score == 1.0
    assert everything.criteria["argument"].score < exact.criteria["argument"].score
    assert "support nothing in the body" in everything.criteria["argument"].reason
    assert everything.criteria["grounding"].score < exact.criteria["grounding"].score - 0.3
    assert everything.total < exact.total


def test_loosely_written_llm_citations_resolve(judge: RubricJudge) -> None:
    loose = ["customer_job", "Quality Validation", "human in the loop workflow",
             "annotation guidelines management", "product feature"]  # fmt: skip
    j = judge.judge(GOOD.model_copy(update={"citations": loose}), SCENARIO)
    assert j.criteria["argument"].score == 1.0
    invented = judge.judge(
        GOOD.model_copy(update={"citations": ["Weave Magic", "Zebra"]}), SCENARIO
    )
    assert invented.criteria["argument"].score == 0.0
    assert "'Weave Magic'" in invented.criteria["grounding"].reason
    assert 0.0 < invented.total < j.total  # judged, not crashed or zeroed


def test_composer_output_is_good_but_not_automatically_perfect(
    synth: GraphStore, sample: GraphStore, repo_root: Path
) -> None:
    cold_chain = load_scenarios(repo_root / "data" / "scenarios.json")[0]
    for store, sc in ((synth, SCENARIO), (sample, cold_chain)):
        best = max(
            RubricJudge(store).judge(write_email(store, shortest_path(store), sc, s), sc).total
            for s in ALL_STYLES
        )
        assert 0.2 <= best < 0.99


def test_relevance_is_a_criterion_read_by_meaning(sample: GraphStore, repo_root: Path) -> None:
    """A well-written email about a problem the reader does not have scores lower for
    them than for the reader whose problem it is: relevance, by meaning, is one
    criterion of the fitted total (not a gate)."""
    scenarios = {s.id: s for s in load_scenarios(repo_root / "data" / "scenarios.json")}
    judge = RubricJudge(sample)
    audit = ["Customer Job", "Food Safety Audits", "Manual Temperature Logs",
             "Product Feature: Audit Reports"]  # fmt: skip
    qa = scenarios["sunvalley-quality"]  # paper temperature logs for retailer audits
    finance = scenarios["harborfresh-finance"]  # margins and write-offs
    email_qa = write_email(sample, audit, qa)
    email_fin = write_email(sample, audit, finance)
    right, wrong = judge.judge(email_qa, qa), judge.judge(email_fin, finance)
    assert right.criteria["relevance"].score > wrong.criteria["relevance"].score + 0.15
    # Polish is alike (same facts, same style); relevance alone sets them apart.
    assert wrong.total < right.total
    assert right.criteria["relevance"].weight > 0.0  # a weighted criterion


def test_a_bare_list_of_facts_scores_low(synth: GraphStore) -> None:
    path = shortest_path(synth)
    bare = FinalEmail(
        subject="Quick note: Secure a 20-minute discovery call",
        body="\n".join(synth.content(n) for n in path)
        + "\n\nGoal: Secure a 20-minute discovery call",
        citations=path,
    )
    j = RubricJudge(synth).judge(bare, SCENARIO)
    assert j.total <= 0.4, j
    assert j.criteria["call_to_action"].score <= 0.5
    assert j.criteria["personalisation"].score <= 0.5


def test_other_languages_are_zero(judge: RubricJudge) -> None:
    fr = judge.judge(FRENCH, SCENARIO)
    assert fr.criteria["english"].score == 0.0 and "French" in fr.criteria["english"].reason
    assert fr.total == 0.0
    de = _with(GOOD, "Would you be open to a 20-minute discovery call next week?",
               "Wir wissen, dass Ihre Prüfer sich nicht immer einig sind, und deshalb brauchen Sie klare Richtlinien für die Bewertung der Ergebnisse.\n\nWould you be open to a 20-minute discovery call next week?")  # fmt: skip
    j = judge.judge(de, SCENARIO)  # one paragraph in German: a penalty, not a zero
    assert "German" in j.criteria["sendability"].reason
    assert 0.0 < j.total < judge.judge(GOOD, SCENARIO).total - 0.25


@pytest.mark.parametrize(
    "sign_off",
    ["[Your Name]", "Your Name", "John Doe", "{{sender_name}}", "[Company Name]", "<NAME>"],
)
def test_placeholders_cost_but_keep_the_ranking(judge: RubricJudge, sign_off: str) -> None:
    good = judge.judge(GOOD, SCENARIO).total
    j = judge.judge(_with(GOOD, "Sam Carter", sign_off), SCENARIO)
    assert "placeholder" in j.criteria["sendability"].reason
    assert 0.05 < j.total < 0.6 * good
    # ...and a better email with the same placeholder still ranks above a worse one.
    worse = judge.judge(_with(_with(GOOD, "Sam Carter", sign_off),
                              "Would you be open to a 20-minute discovery call next week?", ""), SCENARIO)  # fmt: skip
    assert worse.total < j.total


def test_a_contact_slot_left_in_the_signature_costs_little(judge: RubricJudge) -> None:
    """Round 12's packet W: readers graded LLM emails that left "[Phone] | [Email]" under
    the name 3 to 4, and one that left "[Utility Name]" in the body 1.3."""
    good = judge.judge(GOOD, SCENARIO).total
    slot = judge.judge(_with(GOOD, "Sam Carter", "Sam Carter\n[Phone] | [Email]"), SCENARIO)
    assert "placeholder in the signature" in slot.criteria["sendability"].reason
    assert 0.6 * good < slot.total < good
    in_body = _with(GOOD, "Would you be open", "Call me on [Phone]. Would you be open")
    body = judge.judge(in_body, SCENARIO)
    assert "placeholder '[Phone]'" in body.criteria["sendability"].reason
    assert body.total < 0.6 * good


def test_a_bracketed_subject_tag_is_not_a_placeholder(judge: RubricJudge) -> None:
    tagged = GOOD.model_copy(update={"subject": "[Discovery Call] Consistent human review"})
    assert judge.judge(tagged, SCENARIO).criteria["sendability"].score == 1.0


def test_call_to_action_forms(judge: RubricJudge) -> None:
    ask = "Would you be open to a 20-minute discovery call next week?"
    scores = {
        text: judge.judge(_with(GOOD, ask, text), SCENARIO).criteria["call_to_action"].score
        for text in ("Worth 20 minutes next week?", "Open to a quick chat next week?",
                     "Let me know if a 20-minute call next week works.",
                     "I would welcome a 20-minute discovery call.", "Thoughts?", "")
    }  # fmt: skip
    assert list(scores.values()) == [1.0, 1.0, 0.8, 0.5, 0.3, 0.0]


def test_several_asks_cost(judge: RubricJudge) -> None:
    ask = "Would you be open to a 20-minute discovery call next week?"
    many = _with(
        GOOD,
        ask,
        f"{ask} Could we book a call on Tuesday? Are you free on Wednesday instead? Can we talk this week?",
    )
    j = judge.judge(many, SCENARIO)
    assert "4 asks" in j.criteria["sendability"].reason
    assert j.total < judge.judge(GOOD, SCENARIO).total - 0.2


def test_an_ask_after_a_linking_word_is_still_an_ask(judge: RubricJudge) -> None:
    """ "And could you forward this…?" asks for something as much as "Could you…?"."""
    ask = "Would you be open to a 20-minute discovery call next week?"
    more = _with(
        GOOD,
        ask,
        f"{ask} Separately, would you like a seat in our pilot programme? And could you "
        "forward this to whoever handles procurement and fill in the short survey?",
    )
    assert "3 asks" in judge.judge(more, SCENARIO).criteria["sendability"].reason


def test_invented_numbers_and_customers_cost_but_given_ones_do_not(
    judge: RubricJudge, sample: GraphStore
) -> None:
    invented = _with(
        GOOD,
        "W&B Weave gives",
        "Companies like Stripe and Revolut cut review time by 64% with Weave, saving $1.2 million. W&B Weave gives",
    )
    j = judge.judge(invented, SCENARIO)
    assert (
        "unsupported" in j.criteria["grounding"].reason and "64%" in j.criteria["grounding"].reason
    )
    assert j.total < judge.judge(GOOD, SCENARIO).total - 0.2
    # Numbers the graph, the goal or the prospect supplies are no claims.
    scenario = Scenario(
        prospect=Prospect(name="Priya Natarajan"), goal="Set up a two-week pilot on 5 trucks"
    )
    body = "Hi Priya,\n\nFood distribution runs on net margins of two to three percent, and one spoiled pallet can cost several thousand dollars. Frostline's probes read each pallet every minute and alert the driver when a load drifts.\n\nCould we run a 2-week pilot on 5 trucks, with a 30-minute kickoff call?\n\nBest,\nSam"
    given = RubricJudge(sample).judge(
        FinalEmail(
            subject="A pilot",
            body=body,
            citations=["Margin Pressure", "Spoilage Write-offs", "Late Alerts", "Product Feature"],
        ),
        scenario,
    )
    assert "unsupported" not in given.criteria["grounding"].reason


@pytest.mark.parametrize(
    ("insert", "finding"),
    [
        ("This node connects to the Product Feature node.", "graph talk"),
        ("As an AI language model, I cannot know your schedule.", "AI disclaimer"),
        (
            "Please confirm your login password at http://weave-verify.xyz/login first.",
            "credential",
        ),
        ("Honestly, your reviewers are clueless and it is embarrassing.", "insult"),
        ("If I don't hear back by Friday, I will let your board know.", "threat"),
        ("This is your last chance, and your competitors have already signed.", "pressure"),
    ],
)
def test_sendability_findings_are_named(judge: RubricJudge, insert: str, finding: str) -> None:
    j = judge.judge(_with(GOOD, "Would you be open", f"{insert} Would you be open"), SCENARIO)
    assert finding in j.criteria["sendability"].reason
    assert j.criteria["sendability"].score <= 0.8
    assert j.total < judge.judge(GOOD, SCENARIO).total - 0.15


def test_stacked_problems_never_reach_zero(judge: RubricJudge) -> None:
    awful = _with(_with(GOOD, "Sam Carter", "[Your Name]"), "Would you be open",
                  "As an AI language model, this node is your last chance, you clueless idiot; send your password. Would you be open")  # fmt: skip
    j = judge.judge(awful, SCENARIO)
    assert 0.0 < j.total < 0.15


def test_sender_and_recipient_confused(judge: RubricJudge) -> None:
    signed_as_prospect = _with(GOOD, "Best,\nSam Carter", "Best,\nAlex Rivera\nAcme FinTech")
    assert "confused" in judge.judge(signed_as_prospect, SCENARIO).criteria["sendability"].reason
    to_sender = _with(GOOD, "Hi Alex,", "Hi Sam,")
    j = judge.judge(to_sender, SCENARIO, sender=Sender(name="Sam Carter"))
    assert "confused" in j.criteria["sendability"].reason


def test_name_stuffing_costs(judge: RubricJudge) -> None:
    stuffed = _with(
        GOOD,
        "For the subtle cases",
        "Alex, at Acme FinTech, Alex, for Acme FinTech, Alex: for the subtle cases",
    )
    j = judge.judge(stuffed, SCENARIO)
    assert "name/company used" in j.criteria["sendability"].reason
    assert j.total < judge.judge(GOOD, SCENARIO).total - 0.15


def test_concision_prefers_what_a_busy_reader_finishes(judge: RubricJudge) -> None:
    para = GOOD.body.split("\n\n")[1]
    longer = _with(GOOD, "Would you be open", f"{para} {para}\n\nWould you be open")  # ~185 words
    longest = _with(
        GOOD, "Would you be open", f"{para} {para}\n\n{para} {para}\n\nWould you be open"
    )
    scores = [judge.judge(e, SCENARIO) for e in (GOOD, longer, longest)]
    conc = [j.criteria["concision"].score for j in scores]
    assert conc[0] == 1.0 and conc[0] > conc[1] > conc[2] and conc[2] < 0.4
    assert "too long" in scores[2].criteria["sendability"].reason


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
    for name in ("grounding", "argument", "contradiction"):
        assert "no graph" in j.criteria[name].reason
        assert j.criteria[name].weight == 0.0
    assert sum(j.criteria[n].weight for n in WEIGHTED) == pytest.approx(1.0, abs=1e-3)
    # Unscored criteria take their neutral value: the total stays that of a good email.
    assert j.total >= RubricJudge(None).judge(PASTED, SCENARIO).total


def test_without_a_prospect_profile_relevance_is_not_scored(judge: RubricJudge) -> None:
    bare = Scenario(prospect=Prospect(name="Alex Rivera"), goal=SCENARIO.goal)
    j = judge.judge(GOOD, bare)
    assert j.criteria["relevance"].weight == 0.0 and "not scored" in j.criteria["relevance"].reason


def test_argument_partial_credit(sample: GraphStore) -> None:
    judge = RubricJudge(sample)
    scores = [
        judge.judge(write_email(sample, p, SCENARIO, reach_feature=False), SCENARIO)
        .criteria["argument"]
        .score
        for p in (["Customer Job"], ["Customer Job", "Margin Pressure"],
                  ["Customer Job", "Margin Pressure", "Spoilage Write-offs", "Late Alerts"],
                  ["Customer Job", "Margin Pressure", "Spoilage Write-offs", "Late Alerts",
                   "Product Feature"])
    ]  # fmt: skip
    assert scores[0] == 0.0
    assert 0.0 < scores[1] < scores[2] <= 0.5 < scores[3]
    dead_email = write_email(
        sample, ["Customer Job", "Driver Turnover"], SCENARIO, reach_feature=False
    )
    dead = judge.judge(dead_email, SCENARIO)
    assert dead.criteria["argument"].score <= 0.2


def test_steps_told_backwards_cost(judge: RubricJudge) -> None:
    paras = GOOD.body.split("\n\n")
    backwards = GOOD.model_copy(
        update={"body": "\n\n".join([paras[0], paras[2], paras[1], *paras[3:]])}
    )
    j = judge.judge(backwards, SCENARIO)  # the product before the need it answers
    assert "out of order" in j.criteria["argument"].reason
    assert j.criteria["argument"].score < judge.judge(GOOD, SCENARIO).criteria["argument"].score


def test_the_reward_depends_on_the_prospect(judge: RubricJudge) -> None:
    """The same email reads differently to different people, even with the same name."""
    ml = SCENARIO
    cfo = Scenario(prospect=Prospect(name="Alex Rivera", title="CFO", company="Acme FinTech",
                                     industry="FinTech", notes="Cutting vendor costs this year."),
                   goal=SCENARIO.goal)  # fmt: skip
    a, b = judge.judge(GOOD, ml), judge.judge(GOOD, cfo)
    assert a.criteria["relevance"].score > b.criteria["relevance"].score + 0.2
    assert a.total > b.total + 0.03


def test_the_best_facts_differ_by_prospect(sample: GraphStore) -> None:
    """What learning needs: on one graph, which facts win depends on who reads them.
    Two prospects with the same name and company; two equally well-written emails."""
    judge = RubricJudge(sample)
    person = {"name": "Jordan Lee", "company": "Harbor Foods", "industry": "food distribution"}
    quality = Scenario(prospect=Prospect(**person, title="Quality Assurance Director",
                                         notes="Last audit flagged gaps in paper temperature logs."),
                       goal="Book a 20-minute call")  # fmt: skip
    fleet = Scenario(prospect=Prospect(**person, title="Fleet Operations Manager",
                                       notes="Lost two trailers to reefer failures last summer."),
                     goal="Book a 20-minute call")  # fmt: skip
    audit_email = FinalEmail(
        subject="Jordan, temperature records for audits",
        body="Hi Jordan,\n\nAuditors want an unbroken temperature record for every shipment, and logs that drivers fill in by hand at each stop tend to have gaps and rounded readings.\n\nFrostline records the readings automatically and turns each trip into an audit-ready report you can search by shipment, batch or customer.\n\nCould we book a 20-minute call next week?\n\nBest,\nSam Carter",
        citations=[
            "Food Safety Audits",
            "Manual Temperature Logs",
            "Product Feature: Audit Reports",
        ],
    )
    reefer_email = FinalEmail(
        subject="Jordan, catching reefer failures early",
        body="Hi Jordan,\n\nA refrigeration unit with a worn compressor warms a trailer slowly, and since the cab display shows only the setpoint, nobody notices until the load reaches the dock.\n\nFrostline's probes read each pallet's temperature every minute and alert the driver and dispatcher as soon as a load starts to drift.\n\nCould we book a 20-minute call next week?\n\nBest,\nSam Carter",
        citations=[
            "Temperature Excursions",
            "Reefer Unit Failures",
            "Late Alerts",
            "Product Feature",
        ],
    )
    q = [judge.judge(e, quality).total for e in (audit_email, reefer_email)]
    f = [judge.judge(e, fleet).total for e in (audit_email, reefer_email)]
    assert q[0] > q[1] + 0.03, q  # the quality director prefers the audit argument
    assert f[1] > f[0] + 0.03, f  # the fleet manager, the reefer one


def test_style_and_path_choices_matter(sample: GraphStore, repo_root: Path) -> None:
    """The best composed email is clearly better than the average one."""
    from codreamer.loaders import load_scenarios

    judge = RubricJudge(sample)
    scenario = load_scenarios(repo_root / "data" / "scenarios.json")[0]  # a dairy distributor
    paths = [["Customer Job"], ["Customer Job", "Food Safety Audits"],
             *sample.paths_to_features(max_hops=6)]  # fmt: skip
    rewards = [
        judge.judge(write_email(sample, p, scenario, s), scenario).total
        for p in paths
        for s in ALL_STYLES
    ]
    assert sum(rewards) / len(rewards) <= 0.85 * max(rewards)


def test_deterministic(judge: RubricJudge, weave: GraphStore) -> None:
    a = judge.judge(GOOD, SCENARIO)
    b = RubricJudge(weave).judge(GOOD, SCENARIO)
    assert a == b
    assert a.model_dump_json() == judge.judge(GOOD, SCENARIO).model_dump_json()


def test_fast_criterion_equals_the_validated_model() -> None:
    from codreamer.judge.rubric import criterion
    from codreamer.models import CriterionScore, Judgement

    fast = criterion(0.5, 0.2, "why")
    slow = CriterionScore(score=0.5, weight=0.2, reason="why")
    assert fast == slow and fast.model_dump() == slow.model_dump()
    assert fast.model_copy(update={"score": 0.1}).score == 0.1
    j = Judgement(total=0.5, criteria={"a": slow})
    assert (
        Judgement.model_validate_json(
            Judgement.model_construct(total=0.5, criteria={"a": fast}).model_dump_json()
        )
        == j
    )
    from codreamer.judge.rubric.judge import judgement

    built = judgement(0.5, {"a": fast})
    constructed = Judgement.model_construct(total=0.5, criteria={"a": fast})
    assert built == constructed == j and built.model_dump_json() == j.model_dump_json()
    assert built.model_fields_set == constructed.model_fields_set
    assert built.__dict__ == constructed.__dict__ and list(built.__dict__) == ["total", "criteria"]


def test_reasons_are_reproducible_across_processes(weave: GraphStore) -> None:
    """Reasons end up in artifacts that must be byte-identical for the same seed; set
    iteration order varies with PYTHONHASHSEED, so nothing may depend on it."""
    import json
    import subprocess
    import sys

    probe = (
        "import json, sys\n"
        "from tests.judge import test_rubric as t\n"
        "from codreamer.judge.rubric import RubricJudge\n"
        "from codreamer.loaders import load_graph, load_scenarios\n"
        "j = RubricJudge(load_graph(sys.argv[1]))\n"
        "bad = t._with(t.GOOD, 'Would you be open', 'Act now, this is your last chance and it is urgent. Would you be open')\n"
        "print(json.dumps([j.judge(e, t.SCENARIO).model_dump() for e in (t.GOOD, bad)]))\n"
    )
    kg = str(KG / "weave-feedback-5.json")
    outs = {
        subprocess.run(
            [sys.executable, "-c", probe, kg], capture_output=True, text=True, check=True,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
            cwd=REPO,
        ).stdout
        for seed in ("1", "2", "3")
    }  # fmt: skip
    assert len(outs) == 1 and json.loads(outs.pop())


@pytest.mark.parametrize(
    ("old", "new", "finding"),
    [
        # a lead-in that names the topic, then the graph's own sentence pasted in
        ("For the subtle cases that metrics miss, people review the outputs, and that only "
         "works if every reviewer follows the same guidelines.",
         "On quality, one thing stands out: requires a human-in-the-loop workflow for "
         "qualitative assessment of model outputs.", "glued on after a stock lead-in"),
        # the same point made again in other words
        ("W&B Weave gives you one place",
         "Reviewers who follow different guidelines grade the same outputs differently. "
         "W&B Weave gives you one place", None),
    ],
)  # fmt: skip
def test_template_seams_cost_naturalness(
    judge: RubricJudge, old: str, new: str, finding: str | None
) -> None:
    base = judge.judge(GOOD, SCENARIO).criteria["naturalness"]
    seam = judge.judge(_with(GOOD, old, new), SCENARIO).criteria["naturalness"]
    if finding is None:  # a new point, not a repeat: costs nothing
        assert seam.score == base.score, seam.reason
    else:
        assert seam.score < base.score and finding in seam.reason, seam.reason


def test_a_point_made_twice_costs_naturalness(judge: RubricJudge) -> None:
    twice = _with(
        GOOD,
        "W&B Weave gives you one place",
        "People review the subtle cases that metrics miss, and every reviewer must "
        "follow the same guidelines. W&B Weave gives you one place",
    )
    j = judge.judge(twice, SCENARIO).criteria["naturalness"]
    assert "says the same thing twice" in j.reason and j.score < 1.0, j.reason


@pytest.mark.parametrize("subject", ["Latency 0 at Acme FinTech", "Compliance 1", "Rubrics 2?"])
def test_a_slot_filled_with_a_key_in_the_subject_costs(judge: RubricJudge, subject: str) -> None:
    j = judge.judge(GOOD.model_copy(update={"subject": subject}), SCENARIO)
    assert "the subject names a graph node" in j.criteria["naturalness"].reason
    ok = judge.judge(GOOD.model_copy(update={"subject": "Top 5 review problems"}), SCENARIO)
    assert "the subject names a graph node" not in ok.criteria["naturalness"].reason


WATER = GraphStore.from_json(
    [
        {"id": "Customer Job", "content": "Municipal water utilities deliver drinking water "
         "through thousands of miles of buried main.",
         "edges": [{"target": "Main Breaks", "label": "suffers", "rationale": "Breaks cost."}]},
        {"id": "Main Breaks", "content": "The US sees a water main break roughly every two "
         "minutes, about 250,000 a year.",
         "edges": [{"target": "Product Feature: Leak Platform", "label": "addressed by",
                    "rationale": "Finding leaks early prevents breaks."}]},
        {"id": "Product Feature: Leak Platform", "content": "Listenwell's platform locates a "
         "leak to within a few meters and ranks leaks by priority.", "edges": []},
    ]
)  # fmt: skip
WATER_EMAIL = FinalEmail(
    subject="Main breaks at Millbrook",
    body="Hi Ray,\n\nNationally the US sees a main break roughly every two minutes, and many "
    "start as small leaks.\n\nListenwell's platform locates a leak to within a few meters and "
    "ranks them by priority, so crews fix the worst first.\n\nWould you have 20 minutes next "
    "week to look at your break history?\n\nBest,\nTom",
    citations=["Customer Job", "Main Breaks", "Product Feature: Leak Platform"],
)
WATER_SCENARIO = Scenario(
    prospect=Prospect(name="Ray Ortiz", title="Operations Manager", company="Millbrook Water"),
    goal="Book a 20-minute call",
)


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("every two minutes", "every two hours", "says 2 hour where the graph says 2 minute"),
        ("within a few meters", "within 100 meters", "says 100 m where the graph says few m"),
    ],
)
def test_a_quantity_told_otherwise_is_a_contradiction(old: str, new: str, said: str) -> None:
    judge = RubricJudge(WATER)
    faithful = judge.judge(WATER_EMAIL, WATER_SCENARIO).criteria["contradiction"]
    assert faithful.score == 1.0, faithful.reason  # the ask's "20 minutes" is no claim
    wrong = WATER_EMAIL.model_copy(update={"body": WATER_EMAIL.body.replace(old, new)})
    c = judge.judge(wrong, WATER_SCENARIO).criteria["contradiction"]
    assert c.score < 1.0 and said in c.reason, c.reason


@pytest.mark.parametrize(
    "note",
    [
        "Breaks are worth including because many begin as small leaks.",
        "This establishes the need for a formal rubric for reviewers.",
        "Hidden leaks should be mentioned alongside breaks.",
    ],
)
def test_notes_for_the_graphs_author_cost_naturalness(note: str) -> None:
    email = WATER_EMAIL.model_copy(
        update={"body": WATER_EMAIL.body.replace("and many start as small leaks.", "and " +
                                                 "many start as small leaks. " + note)}
    )  # fmt: skip
    n = RubricJudge(WATER).judge(email, WATER_SCENARIO).criteria["naturalness"]
    assert "a note for the graph's author" in n.reason, n.reason


@pytest.mark.parametrize(
    "duty",
    [
        "State rules require you to report water loss every year.",
        "Regulators expect utilities to file a validated audit each year.",
        "You are required to file a validated audit each year.",
    ],
)
def test_a_duty_told_to_the_reader_costs_naturalness(duty: str) -> None:
    """Readers grade a reader's own obligations told back to them as a lecture
    ("lectures a claims litigation manager on unfair-claims law", packet K)."""
    judge = RubricJudge(WATER)
    plain = judge.judge(WATER_EMAIL, WATER_SCENARIO).criteria["naturalness"]
    assert "duties" not in plain.reason, plain.reason
    email = WATER_EMAIL.model_copy(
        update={"body": WATER_EMAIL.body.replace("the worst first.", "the worst first. " + duty)}
    )
    n = judge.judge(email, WATER_SCENARIO).criteria["naturalness"]
    assert n.score < plain.score and "tells the reader their duties" in n.reason, n.reason


@pytest.mark.parametrize(
    "proof",
    [
        "Listenwell is trusted by more than 400 utilities.",
        "We were named a leader in the latest Gartner report.",
        "One of our clients, a mid-size utility in Ohio, cut water loss by a third.",
        "Listenwell is rated 4.8 out of 5 on G2.",
        'As one operations manager put it, "it paid for itself in six months."',
        "Our award-winning platform is used across the country.",
        "In a pilot with a utility your size, breaks fell by half in a year.",
        "Most of our customers recover their investment within a year.",
        "That is why 7 of the 10 largest US water utilities now run Listenwell.",
        "The state's water loss committee cited us as a reference approach.",
    ],
)
def test_social_proof_the_graph_does_not_make_is_invented(proof: str) -> None:
    judge = RubricJudge(WATER)
    email = WATER_EMAIL.model_copy(
        update={"body": WATER_EMAIL.body.replace("the worst first.", "the worst first. " + proof)}
    )
    c = judge.judge(email, WATER_SCENARIO).criteria["contradiction"]
    assert c.score < 1.0 and "social proof" in c.reason, c.reason
    # The same claim is no invention when the graph makes it.
    said = GraphStore.from_json(
        [
            {**n, "content": n["content"] + " " + proof} if n["id"].startswith("Product") else n
            for n in WATER.to_json()
        ]
    )
    c = RubricJudge(said).judge(email, WATER_SCENARIO).criteria["contradiction"]
    assert "social proof" not in c.reason, c.reason


def test_the_feature_that_fits_answers_the_problem_the_notes_describe() -> None:
    """Notes describe a pain; a feature is described by what it does. The feature
    that fits is the one whose problem node matches the notes, even when another
    feature's own words sit closer to them."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Builds hospitals and schools as a general contractor.",
             "edges": [{"target": "Struck-by Incidents", "label": "faces", "rationale": "Crowded sites."},
                       {"target": "Falls From Height", "label": "faces", "rationale": "Upper floors."}]},
            {"id": "Struck-by Incidents", "content": "Workers on foot are hit by reversing excavators and skid steers in tight footprints.",
             "edges": [{"target": "Product Feature: Proximity Alerts", "label": "is solved by", "rationale": "Alerts before contact."}]},
            {"id": "Falls From Height", "content": "Workers fall from scaffolds and roof edges while working alone.",
             "edges": [{"target": "Product Feature: Fall Detection", "label": "is solved by", "rationale": "Alerts after a fall."}]},
            {"id": "Product Feature: Proximity Alerts", "content": "Tags vibrate when a tagged person comes within five meters of a tagged vehicle.", "edges": []},
            {"id": "Product Feature: Fall Detection", "content": "A clip-on tag detects a worker's fall on site and alerts the supervisor.", "edges": []},
        ]
    )  # fmt: skip
    sc = Scenario(
        prospect=Prospect(name="Luis Ortega", title="EHS Director", company="Barrow",
                          notes="A laborer was pinned by a reversing skid steer on site in March."),
        goal="Book a 20-minute call",
    )  # fmt: skip
    judge = RubricJudge(store)

    def email(feature: str, text: str) -> FinalEmail:
        body = f"Hi Luis,\n\n{text}\n\nWould a 20-minute call next week work?\n\nBest,\nSam"
        return FinalEmail(subject="Site safety", body=body, citations=["Customer Job", feature])

    right = judge.judge(
        email(
            "Product Feature: Proximity Alerts", store.content("Product Feature: Proximity Alerts")
        ),
        sc,
    )
    wrong = judge.judge(
        email("Product Feature: Fall Detection", store.content("Product Feature: Fall Detection")),
        sc,
    )
    assert right.criteria["solution_fit"].score == 1.0, right.criteria["solution_fit"].reason
    assert wrong.criteria["solution_fit"].score < 0.5, wrong.criteria["solution_fit"].reason


COST = GraphStore.from_json(
    [
        {"id": "Customer Job", "content": "Data teams run analytics on cloud warehouses.",
         "edges": [{"target": "Cloud Cost", "label": "faces"}]},
        {"id": "Cloud Cost", "content": "Idle clusters left running all weekend and forgotten "
         "jobs overrun the budget.",
         "edges": [{"target": "Product Feature: Cost Controls", "label": "addressed by"}]},
        {"id": "Product Feature: Cost Controls", "content": "Brightwell pauses idle clusters and "
         "moves cold data to cheaper storage automatically."},
    ]
)  # fmt: skip
COST_SCENARIO = Scenario(
    prospect=Prospect(name="Priyanka Rao", title="FinOps Manager", company="Kite Insurance"),
    goal="Book a 20-minute call",
)
COST_EMAIL = FinalEmail(
    subject="About cost",
    body="Hi Priyanka,\n\nIdle clusters left running all weekend and forgotten jobs overrun the "
    "budget.\n\nBrightwell pauses idle clusters and moves cold data to cheaper storage "
    "automatically.\n\nCould we find 20 minutes next week?\n\nWith thanks,\nSam",
    citations=["Customer Job", "Cloud Cost", "Product Feature: Cost Controls"],
)


@pytest.mark.parametrize(
    ("subject", "about"),
    [
        ("About cost", True),  # names the cited fact ("Cloud Cost")
        ("Cost at Kite Insurance?", True),  # the company says nothing of the topic
        ("Idle clusters", True),  # words of the body
        ("Congrats on the new role", False),
        ("A question about your priorities", False),  # a frame and nothing told
    ],
)
def test_a_subject_is_about_the_body_when_it_names_what_the_email_tells(
    subject: str, about: bool
) -> None:
    """A topic of a word or two is too short for the sentence embedding to place:
    "About cost" over a body all about a blown cloud budget read as a subject not about
    the body, and cost the email most of its deception score (0.22 of its oracle for a
    FinOps manager). What the subject's own words name is read first."""
    email = COST_EMAIL.model_copy(update={"subject": subject})
    d = RubricJudge(COST).judge(email, COST_SCENARIO).criteria["deception"]
    assert ("the subject is not about the body" not in d.reason) is about, d.reason


@pytest.mark.parametrize("signoff", ["With thanks,", "Best wishes,", "Respectfully,", "Regards,"])
def test_a_sign_off_is_not_a_sentence_fragment(signoff: str) -> None:
    """The writer signs "With thanks,"; the judge read it as a two-word sentence of the
    prose and charged a fragment."""
    email = COST_EMAIL.model_copy(update={"body": COST_EMAIL.body.replace("With thanks,", signoff)})
    s = RubricJudge(COST).judge(email, COST_SCENARIO).criteria["sendability"]
    assert "fragment" not in s.reason, s.reason
    clipped = email.model_copy(
        update={"body": email.body.replace("next week?", "next week? Sure.")}
    )
    s = RubricJudge(COST).judge(clipped, COST_SCENARIO).criteria["sendability"]
    assert "fragment" in s.reason, s.reason  # a real fragment still counts


def test_a_figure_said_in_percent_is_the_figure_the_graph_gives_with_a_sign() -> None:
    """The writer says "percent" for "%": "99.9 percent" was read as a plain 99.9 and
    taken for the fact's other plain figure ("says 99.9 where the graph says 20")."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Warehouses pick orders for many clients.",
             "edges": [{"target": "Product Feature: Voice", "label": "needs"}]},
            {"id": "Product Feature: Voice", "content": "Voice picking directs workers in more "
             "than 20 languages, raising accuracy to 99.9% in typical deployments."},
        ]
    )  # fmt: skip
    email = FinalEmail(
        subject="Picking accuracy",
        body="Hi Fatima,\n\nVoice picking directs workers in more than 20 languages, raising "
        "accuracy to 99.9 percent in typical deployments.\n\nCould we talk next week?\n\nBest,\nTom",
        citations=["Customer Job", "Product Feature: Voice"],
    )
    sc = Scenario(prospect=Prospect(name="Fatima Haddad", title="Client Ops"), goal="Book a call")
    judge = RubricJudge(store)
    assert judge.judge(email, sc).criteria["contradiction"].score == 1.0
    wrong = email.model_copy(update={"body": email.body.replace("99.9 percent", "90 percent")})
    c = judge.judge(wrong, sc).criteria["contradiction"]
    assert c.score < 1.0 and "says 90%" in c.reason, c.reason


@pytest.mark.parametrize(
    ("line", "invented"),
    [
        ("When Brandywine Water ran Listenwell for a year, it cut losses by a third.", True),
        ("It is the same picture Pinecrest Utilities had, and their breaks fell 40%.", True),
        ("In March alone Millbrook logged 212 main breaks, up from 160.", False),
        ("For Millbrook Water that could mean fixing the worst leaks first.", False),
        ("Listenwell ranks leaks by priority, so crews fix the worst first.", False),
    ],
)
def test_a_name_nothing_mentions_beside_a_result_is_invented_proof(
    line: str, invented: bool
) -> None:
    """Round 12: a customer, award or quote the seller made up, named beside a result,
    in forms without a 'customers like' lead-in; a known name beside a figure is not."""
    email = WATER_EMAIL.model_copy(
        update={"body": WATER_EMAIL.body.replace("Would you have", line + "\n\nWould you have")}
    )
    c = RubricJudge(WATER).judge(email, WATER_SCENARIO).criteria["contradiction"]
    assert ("nothing it draws on mentions" in c.reason) is invented, c.reason


def test_a_sentence_holding_both_poles_is_a_contrast_not_the_fact_turned_around() -> None:
    """Round 12: a good email (graded 5) lost 0.6 of its contradiction score to "is
    rarely one big mistake; it's usually clusters left running" against a fact that
    says "often"."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "FinOps teams keep cloud spend on budget.",
             "edges": [{"target": "Idle Clusters", "label": "suffers"}]},
            {"id": "Idle Clusters", "content": "Cloud spend often leads to clusters left "
             "running all weekend.",
             "edges": [{"target": "Product Feature: Cost Controls", "label": "solved by"}]},
            {"id": "Product Feature: Cost Controls", "content": "Brightwell pauses idle "
             "clusters automatically."},
        ]
    )  # fmt: skip
    body = (
        "Hi Priyanka,\n\n{claim}\n\nBrightwell pauses idle clusters automatically.\n\n"
        "Would you have 20 minutes next week?\n\nCheers,\nOwen"
    )
    cited = ["Customer Job", "Idle Clusters", "Product Feature: Cost Controls"]
    sc = Scenario(prospect=Prospect(name="Priyanka Rao", title="FinOps Manager"), goal="A call")
    judge = RubricJudge(store)
    contrast = FinalEmail(subject="Weekend cloud spend", citations=cited, body=body.format(
        claim="A cloud bill that doubles is rarely one big mistake; it's usually clusters "
        "left running all weekend."))  # fmt: skip
    c = judge.judge(contrast, sc).criteria["contradiction"]
    assert c.score == 1.0, c.reason
    flipped = contrast.model_copy(update={"body": body.format(
        claim="Cloud spend rarely leads to clusters left running all weekend.")})  # fmt: skip
    c = judge.judge(flipped, sc).criteria["contradiction"]
    assert c.score < 1.0 and "opposite" in c.reason, c.reason


_JUDGE_EVERY_EMAIL = """
import json, sys
from codreamer.judge.rubric import RubricJudge
from codreamer.loaders import load_graph
from codreamer.models import FinalEmail, Scenario
root = sys.argv[1]
judge = RubricJudge(load_graph(root + "/benchmarks/data/graded/graphs/legal-ediscovery.json"))
sc = {s["id"]: Scenario.model_validate(s) for s in json.load(
    open(root + "/benchmarks/data/graded/prospects/legal-ediscovery.json"))}
out = []
for line in open(root + "/benchmarks/data/graded/emails/legal-ediscovery.jsonl"):
    r = json.loads(line)
    j = judge.judge(FinalEmail.model_validate(r["email"]), sc[r["scenario"]])
    out.append([r["id"], j.total, {k: c.reason for k, c in j.criteria.items()}])
print(json.dumps(out))
"""


def test_scores_do_not_depend_on_the_process_string_hashing(repo_root: Path) -> None:
    """A run's rewards must not change with the process: sums of weights over a set
    of concepts ran in hash order, and one email's argument was 1.0 or 0.68 by the
    seed of Python's string hashing."""

    def judged(seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        return subprocess.run(
            [sys.executable, "-c", _JUDGE_EVERY_EMAIL, str(repo_root)],
            env=env, capture_output=True, text=True, check=True, timeout=300,
        ).stdout  # fmt: skip

    first = judged("0")
    assert len(json.loads(first)) == 32
    for seed in ("1", "2", "3"):
        assert judged(seed) == first, seed


@pytest.mark.parametrize("reader", ["northfield-dairy-ops", "polar-pharma-compliance"])
def test_an_email_pitching_both_features_pitches_the_one_that_fits(reader: str) -> None:
    """Round 12's packet W: an LLM-written email walks through several features; the
    right one among them is no wrong pitch, in either order. Alone, the other is."""
    store = load_graph(REPO / "data" / "graph.json")
    scenario = {s.id: s for s in load_scenarios(REPO / "data" / "scenarios.json")}[reader]
    audit = store.content("Product Feature: Audit Reports")
    probes = store.content("Product Feature")
    judge = RubricJudge(store)

    def fit(body: str) -> float:
        email = FinalEmail(
            subject="Reefer loads",
            body=f"Hi Priya,\n\n{body}\n\nWould 20 minutes next week work?\n\nBest,\nJenna",
            citations=["Customer Job", "Product Feature", "Product Feature: Audit Reports"],
        )
        return judge.judge(email, scenario).criteria["solution_fit"].score

    assert fit(f"{audit} {probes}") == fit(f"{probes} {audit}") == 1.0
    assert min(fit(audit), fit(probes)) < 0.6  # one of the two alone is the wrong pitch


def test_a_figure_that_ends_a_sentence_of_the_graph_is_supported() -> None:
    """ "... so they review 15-20 charts instead of 200." gave the graph "200." and
    left "200" in an email that quotes it unsupported (round 14, a new graph)."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Research sites recruit patients for trials.",
             "edges": [{"target": "Chart Review", "label": "struggles with", "rationale": "Hours lost."}]},
            {"id": "Chart Review", "content": "Coordinators read every chart by hand each week.",
             "edges": [{"target": "Product Feature", "label": "is solved by", "rationale": "Ranks charts."}]},
            {"id": "Product Feature", "content": "CohortLens ranks likely-eligible patients, so coordinators review 15-20 charts instead of 200.", "edges": []},
        ]
    )  # fmt: skip
    email = FinalEmail(
        subject="Chart review",
        body="Hi Priya,\n\nCoordinators read every chart by hand each week. CohortLens ranks likely-eligible patients, so coordinators review 15-20 charts instead of 200.\n\nOpen to a 20-minute call?\n\nBest,\nSam",
        citations=["Chart Review", "Product Feature"],
    )
    sc = Scenario(prospect=Prospect(name="Priya Shah"), goal="Book a 20-minute call")
    grounding = RubricJudge(store).judge(email, sc).criteria["grounding"]
    assert "unsupported" not in grounding.reason, grounding.reason


def test_a_result_the_prospect_s_own_notes_state_is_no_invention() -> None:
    """ "Your remake rate roughly doubled to about 9%" told back from the notes read as a
    result the graph does not state: the best email for that prospect scored 0.27
    (round 14, a new graph). The same sentence with no such notes is still one."""
    store = GraphStore.from_json(
        [
            {"id": "Customer Job", "content": "Dental labs make crowns from dentists' scans.",
             "edges": [{"target": "Remakes", "label": "suffers", "rationale": "Bad scans."}]},
            {"id": "Remakes", "content": "Remake rates of 5-10 percent are typical for single-unit crowns.",
             "edges": [{"target": "Product Feature", "label": "is solved by", "rationale": "Checks scans."}]},
            {"id": "Product Feature", "content": "ScanCheck checks every incoming scan within 90 seconds and asks for a rescan.", "edges": []},
        ]
    )  # fmt: skip
    body = (
        "Dear Linda,\n\nI understand your remake rate roughly doubled to about 9% last year. "
        "Remake rates of 5-10 percent are typical for single-unit crowns.\n\nScanCheck checks "
        "every incoming scan within 90 seconds and asks for a rescan.\n\nOpen to a 20-minute "
        "call?\n\nBest regards,\nSam"
    )
    email = FinalEmail(subject="Crown remakes", body=body, citations=["Remakes", "Product Feature"])
    notes = "Their remake rate roughly doubled to about 9% last year."
    told = Scenario(prospect=Prospect(name="Linda Park", notes=notes), goal="Book a call")
    bare = Scenario(prospect=Prospect(name="Linda Park"), goal="Book a call")
    judge = RubricJudge(store)
    assert "does not state" not in judge.judge(email, told).criteria["contradiction"].reason
    assert "does not state" in judge.judge(email, bare).criteria["contradiction"].reason


@pytest.mark.parametrize(
    "sentence",
    [
        "Would it help if we set up a 90-day pilot on 50 rooftop units?",
        "A three-tier system (e.g. high school 7:30, middle school 8:15) lets one bus cover three routes.",
        "Most contracts run 3-5 years, and owners who miss it are locked in for another term.",
        "State aid formulas differ in Pennsylvania and New York.",
        "The report goes to the VP of Membership every Monday.",
    ],
)
def test_good_grammar_the_check_once_misread(sentence: str, judge: RubricJudge) -> None:
    """Round 14, on new graphs: a question's "it help", a list after "(e.g.", a relative
    clause's object ("who miss it are"), a two-word place name ("and New York") and a
    job title ("VP of Membership") were read as broken; "It are" and "because The" still are."""
    body = f"Hi Priya,\n\n{sentence} Frostline's probes alert the driver when a load drifts.\n\nOpen to a 20-minute call?\n\nBest,\nSam"
    email = FinalEmail(subject="An idea", body=body, citations=["Product Feature"])
    grammar = judge.judge(email, SCENARIO).criteria["grammar"]
    assert grammar.score == 1.0, grammar.reason
    bad = email.model_copy(
        update={"body": body.replace(sentence, "It are late because The vans fail.")}
    )
    assert judge.judge(bad, SCENARIO).criteria["grammar"].score < 1.0


def test_a_double_barrelled_surname_greets_the_reader(judge: RubricJudge) -> None:
    """ "Dear Dr. Marsh-Pryor," to Dr. Evelyn Marsh-Pryor read as greeting someone else:
    the default final email for her scored 0.004 (round 14); another name still is."""
    body = "Dear Dr. Marsh-Pryor,\n\nFrostline's probes alert the driver when a load drifts.\n\nOpen to a 20-minute call?\n\nBest,\nSam"
    email = FinalEmail(subject="An idea", body=body, citations=["Product Feature"])
    sc = Scenario(prospect=Prospect(name="Dr. Evelyn Marsh-Pryor"), goal="Book a call")
    assert "not the reader" not in judge.judge(email, sc).criteria["deception"].reason
    other = email.model_copy(update={"body": body.replace("Marsh-Pryor", "Okafor-Lee")})
    assert "not the reader" in judge.judge(other, sc).criteria["deception"].reason
