"""A small splink deduplication model, run end to end on Spark (splink's `SparkAPI`):
the rows are generated people, a few hundred, some of them the same person again with
typos, a missing value or another email.  Every statement splink sends to `spark.sql`
goes through sparkfold's hook, where the recorder sits."""

from __future__ import annotations

import random

FIRST = ["john", "mary", "robert", "linda", "james", "susan", "david", "karen", "paul", "lisa",
         "mark", "anna", "peter", "emma", "tom", "sarah"]
LAST = ["smith", "jones", "taylor", "brown", "williams", "wilson", "johnson", "davies", "evans",
        "thomas", "roberts", "walker"]
CITIES = ["london", "leeds", "bristol", "york", "bath", "hull", None]


def _typo(rnd: random.Random, word: str) -> str:
    if len(word) < 3:
        return word
    i = rnd.randrange(len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def people(n: int = 300, seed: int = 36) -> list[dict]:
    """n people, about a third of them again with a typo, a missing city or another email."""
    rnd = random.Random(seed)
    rows, uid = [], 0
    while len(rows) < n:
        first, last = rnd.choice(FIRST), rnd.choice(LAST)
        dob = f"{rnd.randint(1940, 2005)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
        city = rnd.choice(CITIES)
        email = f"{first}.{last}{rnd.randint(1, 99)}@example.com"
        cluster = uid
        for copy in range(1 + (rnd.random() < 0.35) + (rnd.random() < 0.1)):
            row = {"unique_id": uid, "cluster": cluster, "first_name": first, "surname": last,
                   "dob": dob, "city": city, "email": email}
            if copy:
                if rnd.random() < 0.5:
                    row["first_name"] = _typo(rnd, first)
                if rnd.random() < 0.3:
                    row["surname"] = _typo(rnd, last)
                if rnd.random() < 0.3:
                    row["city"] = None
                if rnd.random() < 0.3:
                    row["email"] = f"{first[0]}{last}@example.org"
                if rnd.random() < 0.2:
                    row["dob"] = None
            rows.append(row)
            uid += 1
    return rows[:n]


def run(spark) -> list[str]:
    """The models on Spark: the rows as Spark DataFrames, splink's SparkAPI on the
    session.  Each step that fails is said (what was sent until then is kept)."""
    import pandas as pd
    from splink.backends.spark import SparkAPI

    failed: list[str] = []

    def step(name, fn, *args):
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - said, and the next step runs
            failed.append(f"{name}: {type(e).__name__}: {str(e).strip()[:300]}")

    db_api = SparkAPI(spark_session=spark, num_partitions_on_repartition=2)
    step("dedupe", lambda: train_and_apply(db_api, db_api.register(spark.createDataFrame(pd.DataFrame(people()))),
                                           step))
    rows = people(240, seed=7)
    step("link", lambda: link_two(*(db_api.register(spark.createDataFrame(pd.DataFrame(rows[i::2])))
                                    for i in (0, 1)), step))
    return failed


def _each(name, fn, *args):
    fn(*args)


def train_and_apply(db_api, data, step=_each) -> None:
    """Train and apply the model: the probability two random records match,
    estimate_u, two EM training sessions, predict, clustering, accuracy against the
    true clusters, a term-frequency table."""
    import logging

    import splink.comparison_library as cl
    from splink import Linker, SettingsCreator, block_on

    settings = SettingsCreator(
        link_type="dedupe_only",
        comparisons=[
            cl.NameComparison("first_name"),
            cl.JaroWinklerAtThresholds("surname", [0.9, 0.8]),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            cl.ExactMatch("city").configure(term_frequency_adjustments=True),
            cl.EmailComparison("email"),
        ],
        blocking_rules_to_generate_predictions=[block_on("first_name"), block_on("surname")],
        retain_intermediate_calculation_columns=True,
    )
    linker = Linker(data, settings, log_level=logging.WARNING)
    t, em = linker.training, linker.training.estimate_parameters_using_expectation_maximisation
    step("probability two random records match", t.estimate_probability_two_random_records_match,
         [block_on("first_name", "surname")], 0.7)
    step("estimate_u", lambda: t.estimate_u_using_random_sampling(max_pairs=2e4, seed=1))
    step("EM blocked on dob", em, block_on("dob"))
    step("EM blocked on email", em, block_on("email"))
    predictions = linker.inference.predict(threshold_match_probability=0.2)
    step("clustering", lambda: linker.clustering.cluster_pairwise_predictions_at_threshold(
        predictions, 0.8).as_pandas_dataframe())
    step("accuracy", lambda: linker.evaluation.accuracy_analysis_from_labels_column(
        "cluster", output_type="table").as_pandas_dataframe())
    step("tf table", lambda: linker.table_management.compute_tf_table("city").as_pandas_dataframe())


def link_two(left, right, step=_each) -> None:
    """A second model, linking two tables (and deduplicating them): other comparisons
    (Levenshtein, Jaro, absolute date difference), m estimated from the true clusters,
    a deterministic link, a prediction and clustering."""
    import logging

    import splink.comparison_library as cl
    from splink import Linker, SettingsCreator, block_on

    settings = SettingsCreator(
        link_type="link_and_dedupe",
        comparisons=[
            cl.LevenshteinAtThresholds("first_name", [1, 2]),
            cl.JaroAtThresholds("surname"),
            cl.AbsoluteDateDifferenceAtThresholds("dob", input_is_string=True, metrics=["day", "year"],
                                                  thresholds=[31, 2]),
            cl.ExactMatch("city"),
        ],
        blocking_rules_to_generate_predictions=[block_on("surname"), block_on("dob")],
    )
    linker = Linker([left, right], settings, log_level=logging.WARNING)
    t = linker.training
    step("link: probability two random records match", t.estimate_probability_two_random_records_match,
         [block_on("first_name", "dob")], 0.8)
    step("link: estimate_u", lambda: t.estimate_u_using_random_sampling(max_pairs=1e4, seed=2))
    step("link: m from labels", t.estimate_m_from_label_column, "cluster")
    step("link: deterministic link", lambda: linker.inference.deterministic_link().as_pandas_dataframe())
    predictions = linker.inference.predict(threshold_match_weight=-5)
    step("link: clustering", lambda: linker.clustering.cluster_pairwise_predictions_at_threshold(
        predictions, 0.5).as_pandas_dataframe())
