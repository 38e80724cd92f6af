-- dbt-spark runs its session with spark.sql.ansi.enabled=false: there cast('n/a' as int)
-- is NULL (under ANSI it raises an error), the comparison with it is NULL and the filter
-- is `amount > 10` (sparkfold: ConstantFolding, NullPropagation, ..., with the setting
-- read from the session; under ANSI it would leave the query as written)
select order_id, amount
from {{ ref('orders') }}
where customer_id = cast('n/a' as int) or amount > 10
