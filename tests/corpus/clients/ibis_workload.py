"""A workload typical of ibis users, on ibis's PySpark backend: an analyst's questions over
a shop's customers, orders and products, written the way ibis's tutorials and user guides
write them (filters, joins of every kind, group-bys and aggregates with NULL handling,
window functions, string and date operations, CASE, set operations, subqueries, unnest,
top-k, describe).  Each query is built from the tables (`tables`), executed, so ibis
compiles it to Spark SQL and sends it through `spark.sql`, where sparkfold's hook sits.

`queries(tables)` is a function of unbound ibis tables too: `ibis.to_sql(expr,
dialect="pyspark")` shows what ibis sends without a session."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

SCHEMAS = {
    "shop_customers": {"customer_id": "bigint", "name": "string", "email": "string", "country": "string",
                       "segment": "string", "signup_date": "date", "score": "double"},
    "shop_orders": {"order_id": "bigint", "customer_id": "bigint", "product_id": "int", "amount": "double",
                    "quantity": "int", "status": "string", "ordered_at": "timestamp", "note": "string",
                    "tags": "array<string>", "discount": "decimal(5,2)"},
    "shop_products": {"product_id": "int", "title": "string", "category": "string", "price": "decimal(10,2)",
                      "active": "boolean"},
}

_WORDS = {
    "name": ["Ada Lovelace", " alan turing ", "Grace", "", "Édith Piaf"],
    "email": ["ada@example.com", "ALAN@EXAMPLE.ORG", "grace@navy.mil", "bad-address", ""],
    "country": ["FR", "US", "DE", "us", ""],
    "segment": ["retail", "wholesale", "vip"],
    "status": ["paid", "shipped", "cancelled", "returned", "PAID"],
    "note": ["gift", "express delivery", "", "call first"],
    "title": ["Blue Mug", "red mug", "Teapot", "Kettle 2L", ""],
    "category": ["kitchen", "garden", "toys"],
}


def rows(table: str, count: int = 40, seed: int = 11) -> list[tuple]:
    """Small rows full of NULLs (a fifth of each nullable column), keys that mostly join."""
    rnd = random.Random(f"{seed}:{table}")
    out = []
    for i in range(count):
        row = []
        for col, typ in SCHEMAS[table].items():
            if col in ("order_id",) or (col == "customer_id" and table == "shop_customers") \
                    or (col == "product_id" and table == "shop_products"):
                row.append(i + 1)
                continue
            if rnd.random() < 0.2:
                row.append(None)
            elif col in _WORDS:
                row.append(rnd.choice(_WORDS[col]))
            elif typ in ("bigint", "int"):
                row.append(rnd.randint(1, 12) if col.endswith("_id") else rnd.randint(-1, 9))
            elif typ == "double":
                row.append(rnd.choice([0.0, -0.0, 9.99, 120.5, 3.25, 1e6]))
            elif typ == "date":
                row.append(rnd.choice([dt.date(2023, 1, 31), dt.date(2024, 2, 29), dt.date(2022, 12, 1)]))
            elif typ == "timestamp":
                row.append(rnd.choice([dt.datetime(2024, 3, 1, 9, 30), dt.datetime(2023, 12, 31, 23, 59, 59),
                                       dt.datetime(2024, 2, 29, 0, 0)]))
            elif typ.startswith("decimal"):
                row.append(Decimal(rnd.choice(["0.00", "0.15", "0.50", "12.30"])))
            elif typ == "boolean":
                row.append(rnd.random() < 0.6)
            elif typ.startswith("array"):
                row.append([rnd.choice(["new", "sale", "b2b", None]) for _ in range(rnd.randrange(3))])
            else:
                row.append(None)
        out.append(tuple(row))
    return out


def register(spark) -> None:
    """The tables as temp views of DataFrames (as a notebook user makes them)."""
    from tests.data import register as register_table

    for table, columns in SCHEMAS.items():
        register_table(spark, table, columns, rows(table))


def queries(c, o, p):
    """(name, ibis expression) over customers `c`, orders `o`, products `p`."""
    import ibis
    from ibis import _

    paid = o.filter(o.status.lower().isin(["paid", "shipped"]))
    yield "filter", o.filter((o.amount > 10) & o.note.notnull() & ~o.status.isin(["cancelled"]))
    yield "filter_between", o.filter(o.quantity.between(1, 5) | o.discount.isnull()).select("order_id", "quantity")
    yield "filter_null_or", c.filter((c.country == "FR") | c.country.isnull()).order_by("customer_id")
    yield "select_mutate", o.mutate(net=o.amount * (1 - o.discount.cast("float64").fill_null(0)),
                                    big=o.amount > 100).drop("tags")
    yield "fill_null", o.fill_null({"note": "-", "quantity": 0}).select("order_id", "note", "quantity")
    yield "drop_null", o.drop_null(["amount", "customer_id"]).count()
    yield "coalesce_nullif", o.select(o.order_id, x=ibis.coalesce(o.quantity, o.product_id, 0),
                                      y=o.status.nullif("PAID"), z=o.amount.nullif(0.0))
    yield "ifelse", o.select(o.order_id, size=ibis.ifelse(o.quantity > 3, "large", "small"))
    yield "cases", o.select(o.order_id, band=ibis.cases((o.amount < 10, "low"), (o.amount < 100, "mid"),
                                                         else_="high"))
    yield "value_cases", c.select(c.customer_id, region=c.country.upper().cases(("FR", "EU"), ("DE", "EU"),
                                                                                ("US", "NA"), else_="other"))
    yield "group_by_agg", paid.group_by("customer_id").agg(
        orders=_.count(), revenue=_.amount.sum(), avg_amount=_.amount.mean(), biggest=_.amount.max(),
        products=_.product_id.nunique(), noted=_.note.count())
    yield "agg_where", o.group_by("status").agg(n_big=_.amount.count(where=_.amount > 100),
                                                big_total=_.amount.sum(where=_.amount > 100),
                                                any_note=_.note.notnull().any(), all_paid=(_.status == "paid").all())
    yield "agg_having", o.group_by("customer_id").having(_.amount.sum() > 100).agg(total=_.amount.sum())
    yield "agg_then_filter", o.group_by("product_id").agg(total=_.amount.sum()).filter(_.total.notnull())
    yield "global_agg", o.agg(n=_.count(), total=_.amount.sum(), std=_.amount.std(), var=_.amount.var(),
                              lo=_.ordered_at.min(), hi=_.ordered_at.max())
    yield "scalar_max", o.amount.max()
    yield "count", c.count()
    yield "distinct", o.select("customer_id", "status").distinct()
    yield "nunique", o.status.nunique()
    yield "value_counts", o.status.value_counts()
    yield "topk", o.customer_id.topk(3)
    yield "order_limit", o.order_by([ibis.desc("amount"), "order_id"]).limit(5, offset=2)
    yield "head", p.head(3)
    yield "inner_join", o.join(c, "customer_id").select("order_id", "name", "amount")
    yield "left_join_filter", o.left_join(c, o.customer_id == c.customer_id).filter(c.segment == "vip") \
        .select(o.order_id, c.name)
    yield "left_join_coalesce", c.left_join(paid.group_by("customer_id").agg(total=_.amount.sum()),
                                            "customer_id").select(c.customer_id, total=_.total.fill_null(0))
    yield "outer_join", c.outer_join(o, c.customer_id == o.customer_id).select(c.customer_id, o.order_id)
    yield "three_way_join", o.join(c, "customer_id").join(p, "product_id").group_by(["country", "category"]) \
        .agg(revenue=_.amount.sum()).order_by(ibis.desc("revenue"))
    yield "semi_join", c.semi_join(o.filter(o.amount > 100), "customer_id")
    yield "anti_join", c.anti_join(o, "customer_id")
    yield "self_join", (lambda a, b: a.join(b, [a.customer_id == b.customer_id, a.order_id < b.order_id])
                        .select(first=a.order_id, second=b.order_id))(o, o.view())
    yield "isin_subquery", c.filter(c.customer_id.isin(o.filter(o.status == "returned").customer_id))
    yield "notin_subquery", p.filter(~p.product_id.isin(o.product_id))
    yield "exists", c.filter((o.customer_id == c.customer_id).any())
    yield "scalar_subquery", o.filter(o.amount > o.amount.mean()).select("order_id", "amount")
    yield "row_number", o.mutate(rn=ibis.row_number().over(group_by="customer_id", order_by=ibis.desc("amount"))) \
        .filter(_.rn == 0)
    yield "rank", o.mutate(r=o.amount.rank(), dr=o.amount.dense_rank(), pr=o.amount.percent_rank(),
                           cd=o.amount.cume_dist(), nt=o.amount.ntile(4))
    yield "lag_lead", o.mutate(prev=o.amount.lag().over(group_by="customer_id", order_by="ordered_at"),
                               nxt=o.amount.lead(2, default=0).over(group_by="customer_id", order_by="ordered_at"))
    yield "cumsum", o.order_by("order_id").mutate(running=_.amount.cumsum(), running_max=_.amount.cummax())
    yield "rolling", o.mutate(avg3=o.amount.mean().over(ibis.window(preceding=2, following=0, order_by="order_id")))
    yield "share_of_group", o.mutate(share=o.amount / o.amount.sum().over(group_by="customer_id"))
    yield "first_last", o.group_by("customer_id").agg(first=_.amount.first(), last=_.amount.last(),
                                                      top=_.product_id.argmax(_.amount))
    yield "strings", c.select(c.customer_id, n=c.name.strip().lower(), u=c.name.upper(), len=c.name.length(),
                              dom=c.email.split("@")[1], init=c.name.substr(0, 1), cap=c.name.capitalize(),
                              rev=c.name.reverse(), pad=c.country.lpad(4, "*"))
    yield "string_filters", c.filter(c.email.contains("@") & ~c.email.endswith(".mil") & c.name.startswith("A"))
    yield "regex", c.select(c.customer_id, user=c.email.re_extract(r"^([^@]+)@", 1),
                            ok=c.email.re_search(r"^[a-z]+@[a-z]+\.[a-z]+$"),
                            clean=c.name.re_replace(r"\s+", " "))
    yield "concat_replace", c.select(label=c.name.concat(" <", c.email, ">"), r=c.country.replace("us", "US"),
                                     f=c.name.find("a"))
    yield "like", p.filter(p.title.like("%mug%") | p.title.ilike("kettle%"))
    yield "dates", c.select(c.customer_id, y=c.signup_date.year(), m=c.signup_date.month(),
                            dow=c.signup_date.day_of_week.index(), q=c.signup_date.quarter(),
                            month_start=c.signup_date.truncate("M"), later=c.signup_date + ibis.interval(days=30))
    yield "timestamps", o.select(o.order_id, day=o.ordered_at.date(), h=o.ordered_at.hour(),
                                 wk=o.ordered_at.truncate("W"), s=o.ordered_at.strftime("%Y-%m"),
                                 epoch=o.ordered_at.epoch_seconds())
    yield "date_filter", o.filter(o.ordered_at.date() >= ibis.date("2024-01-01"))
    yield "date_diff", c.select(c.customer_id, days=(ibis.date("2024-06-30") - c.signup_date).cast("int32"))
    yield "numeric", o.select(o.order_id, r=o.amount.round(1), f=o.amount.floor(), cl=o.amount.ceil(),
                              a=o.amount.abs(), ln=o.amount.log10(), sq=o.amount.sqrt(), p=o.amount ** 2,
                              clip=o.amount.clip(lower=0, upper=100), sgn=o.amount.sign(), m=o.quantity % 3)
    yield "casts", o.select(o.order_id, s=o.amount.cast("string"), i=o.amount.cast("int64"),
                            d=o.discount.cast("float64"), t=o.status.try_cast("int64"))
    yield "bucket", o.mutate(bucket=o.amount.bucket([0, 10, 100, 1000], include_over=True))
    yield "union", c.select("customer_id", "country").union(c.filter(c.segment == "vip").select("customer_id", "country"))
    yield "union_distinct", o.select(k=o.customer_id).union(c.select(k=c.customer_id), distinct=True)
    yield "intersect", o.select(k=o.customer_id).intersect(c.select(k=c.customer_id))
    yield "difference", c.select(k=c.customer_id).difference(o.select(k=o.customer_id))
    yield "unnest", o.select("order_id", tag=o.tags.unnest())
    yield "arrays", o.select(o.order_id, n=o.tags.length(), has=o.tags.contains("sale"), first=o.tags[0],
                             joined=o.tags.join(","))
    yield "collect", o.group_by("customer_id").agg(statuses=_.status.collect(), n=_.status.nunique())
    yield "nested_steps", (o.filter(o.amount.notnull()).mutate(month=o.ordered_at.truncate("M"))
                           .group_by(["month", "status"]).agg(total=_.amount.sum(), n=_.count())
                           .filter(_.n > 1).order_by(["month", ibis.desc("total")]))
    yield "percentiles", o.agg(med=_.amount.median(), q90=_.amount.quantile(0.9), amed=_.amount.approx_median())
    yield "corr", o.agg(c=_.amount.corr(_.quantity), cv=_.amount.cov(_.quantity))
    yield "info", c.info()
    yield "pivot_longer", p.select("product_id", "title", "category").pivot_longer(
        ["title", "category"], names_to="field", values_to="value")
    yield "sample_free_limit", c.select("customer_id", "name").limit(10)
